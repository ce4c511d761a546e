import { describe, expect, it, vi } from 'vitest';
import { writeDiscovery } from '../../src/cli/server-discovery.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { demoSession, serve } from '../server/helpers.js';
import { startCli } from './helpers.js';

vi.setConfig({ testTimeout: 240_000 });

/**
 * A terminal that stops reading mid-answer (Ctrl-S, a stopped process, tmux copy mode) while the
 * server streams a long turn: the server does not wait for it, and when its event log no longer
 * holds what the run missed it sends a snapshot instead. The answer printed must still have no hole.
 */
describe('talaria run on a server whose stream fell behind past the event log', () => {
  it('prints the whole answer, in order, once the run reads again', async () => {
    // Text chunks folded per read still make ~15 MB of events: past the kernel's buffers too.
    const chunks = 300_000;
    // A small log and send bound on the server; the kernel's socket buffers still hold a few MB.
    const s = await serve({
      retainEvents: 20,
      maxBufferedBytes: 1024,
      vars: { TALARIA_DEMO_SLOW_CHUNKS: String(chunks), TALARIA_DEMO_SLOW_DELAY_MS: '0' },
    });
    writeDiscovery(s.p.home, { url: s.server.origin, pid: process.pid, token: s.server.token, version: 'test' });
    const snapshots = vi.spyOn(s.server.hub, 'snapshot');
    const cli = startCli(['run', '--verbose', '--agent', 'demo', 'slow'], {
      cwd: s.p.userHome,
      env: { TALARIA_HOME: s.p.home, NO_COLOR: '1' },
    });
    await cli.until((out, err) => out.includes('Chunk 1 of') && err.includes('using the server'));
    const before = snapshots.mock.calls.length;
    cli.child.kill('SIGSTOP');
    try {
      // The turn runs to its end on the server while the run reads nothing.
      for (;;) {
        const { sessions } = await s.client.api.listSessions({});
        if (sessions[0]?.state === 'idle') break;
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      cli.child.kill('SIGCONT');
    }
    const r = await cli.done;
    expect(r.code).toBe(EXIT.OK);
    // The run's stream did fall behind past the log (a snapshot line stood for the gap).
    expect(snapshots.mock.calls.length).toBeGreaterThan(before);
    const seen = [...r.stdout.matchAll(/Chunk (\d+) of/g)].map((m) => Number(m[1]));
    expect(seen.length).toBe(chunks);
    expect(seen.every((n, i) => n === i + 1)).toBe(true);
  });

  it('--session: a prompt queued behind a running turn, which starts and ends inside the gap, is still the one the run prints and waits for', async () => {
    const chunks = 300_000;
    const s = await serve({
      retainEvents: 20,
      maxBufferedBytes: 1024,
      vars: { TALARIA_DEMO_SLOW_CHUNKS: String(chunks), TALARIA_DEMO_SLOW_DELAY_MS: '0' },
    });
    writeDiscovery(s.p.home, { url: s.server.origin, pid: process.pid, token: s.server.token, version: 'test' });
    const id = await demoSession(s);
    // Someone else's turn runs: the run's prompt is queued behind it.
    await s.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    const cli = startCli(['run', '--verbose', '--session', id, 'help'], {
      cwd: s.p.userHome,
      env: { TALARIA_HOME: s.p.home, NO_COLOR: '1' },
    });
    await cli.until((_, err) => err.includes('using the server'));
    const snapshots = vi.spyOn(s.server.hub, 'snapshot');
    cli.child.kill('SIGSTOP');
    try {
      // Both turns run to their end while the run reads nothing: its own starts in the gap.
      // (Read in process: a snapshot over HTTP of a 600k-chunk thread per poll would slow the turns.)
      const ls = s.server.hub.get(id)!;
      const users = () => ls.hs.thread.entries.filter((e) => e.kind === 'user_message').length;
      while (!(users() === 2 && ls.hs.session.queue.length === 0 && ls.hs.session.state === 'idle'))
        await new Promise((r) => setTimeout(r, 50));
    } finally {
      cli.child.kill('SIGCONT');
    }
    const r = await cli.done;
    expect(r.code).toBe(EXIT.OK);
    expect(snapshots).toHaveBeenCalled(); // a snapshot line stood for the gap
    // The run's own answer, all of it in the gap, is printed once; the other turn's text is not
    // this run's answer.
    expect(r.stdout.split('I am the Talaria demo agent').length - 1).toBe(1);
    expect(r.stdout).toContain('`slow`');
    expect(r.stdout).not.toContain('Chunk ');
  });
});
