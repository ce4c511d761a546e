import { describe, it, expect, vi } from 'vitest';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { connectServer } from '../../src/server/client/index.js';
import type { WebSocketCtor } from '../../src/server/client/socket.js';
import { openStore } from '../../src/store/index.js';
import { demoEnv, startCli, tempDir, type CliRun } from '../cli/helpers.js';
import { Probe, isEvent } from './helpers.js';
import type { RunningServer } from '../../src/server/index.js';

vi.setConfig({ testTimeout: 180_000 });

/** Processes whose environment carries `marker` (the test's own demo home): the agents it started. */
function agentPids(marker: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (
        readFileSync(`/proc/${d}/environ`, 'utf8').includes(`TALARIA_DEMO_HOME=${marker}`) &&
        readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('demo')
      )
        out.push(Number(d));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

async function started(run: CliRun): Promise<{ url: string; origin: string; token: string; port: number }> {
  await run.until((out) => /#token=\S+/.test(out));
  const url = run.stdout().match(/(http:\/\/127\.0\.0\.1:(\d+))\/#token=(\S+)/)!;
  return { url: url[0], origin: url[1]!, port: Number(url[2]), token: url[3]! };
}

const asServer = (s: { origin: string; token: string; port: number }) =>
  ({ ...s, host: '127.0.0.1' }) as unknown as RunningServer;

describe('talaria serve as a process', () => {
  it('--open hands the printed link to the browser ($BROWSER, a recorder here); --insecure off loopback warns on stderr', async () => {
    const home = tempDir('serve');
    const got = join(home, 'opened.txt');
    const browser = join(home, 'browser.sh');
    writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > '${got}.part' && mv '${got}.part' '${got}'\n`);
    chmodSync(browser, 0o755);
    const run = startCli(['serve', '--open'], { cwd: home, env: demoEnv(home, { BROWSER: browser }) });
    const s = await started(run);
    await vi.waitUntil(() => existsSync(got), { timeout: 30_000, interval: 50 });
    expect(readFileSync(got, 'utf8')).toBe(s.url);
    expect(run.stderr()).not.toMatch(/warning/);
    run.child.kill('SIGTERM');
    expect((await run.done).code).toBe(0);

    const open = startCli(['serve', '--host', '0.0.0.0', '--insecure'], { cwd: home, env: demoEnv(home) });
    await open.until((out, err) => /#token=/.test(out) && /warning: plain HTTP on 0\.0\.0\.0/.test(err));
    expect(open.stdout()).toMatch(/http:\/\/0\.0\.0\.0:\d+\/#token=/);
    open.child.kill('SIGTERM');
    const end = await open.done;
    expect([end.code, end.signal, end.stderr]).toEqual([0, null, expect.stringContaining('SIGTERM: stopping')]);
  });

  it('SIGTERM mid-turn: the turn is cancelled within the grace period, no agent process is left, exit 0', async () => {
    const home = tempDir('serve');
    const env = demoEnv(home, {
      TALARIA_DEMO_CHUNK_DELAY_MS: '0',
      TALARIA_DEMO_SLOW_CHUNKS: '100000',
      TALARIA_DEMO_SLOW_DELAY_MS: '20',
    });
    const run = startCli(['serve', '--grace', '1'], { cwd: home, env });
    const s = await started(run);
    const c = connectServer(s.url, undefined, { WebSocket: WebSocket as unknown as WebSocketCtor });
    const { workspaces } = await c.api.workspaces();
    expect(workspaces.map((w) => w.path)).toEqual([home]);
    const { snapshot } = await c.api.createSession({ params: { id: workspaces[0]!.id }, body: { provider: 'demo' } });
    const id = snapshot.session.id;
    const p = new Probe(asServer(s));
    await p.wait((m) => m.type === 'welcome');
    p.send({ type: 'subscribe', sessionId: id });
    await c.api.prompt({ params: { id }, body: { text: 'slow' } });
    await p.wait(() => p.events(id).length > 20);
    expect(agentPids(home).length).toBeGreaterThan(0);
    run.child.kill('SIGTERM');
    const done = await run.done;
    expect(done.code).toBe(0);
    expect(done.stderr).toMatch(/SIGTERM: stopping/);
    expect(await p.closed).toBe(1001);
    expect(agentPids(home)).toEqual([]);
    const store = openStore({ home: env.TALARIA_HOME!, readOnly: true });
    expect(store.turns.list(id).map((t) => t.stopReason)).toEqual(['cancelled']);
    store.close();
  });

  it('kill -9 mid-turn → restart: the session is listed again with every frame committed before the kill, and reopens', async () => {
    const home = tempDir('serve');
    const env = demoEnv(home, { TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '5' });
    const first = startCli(['serve'], { cwd: home, env });
    const s1 = await started(first);
    const c1 = connectServer(s1.url, undefined, { WebSocket: WebSocket as unknown as WebSocketCtor });
    const { workspaces } = await c1.api.workspaces();
    const { snapshot } = await c1.api.createSession({ params: { id: workspaces[0]!.id }, body: { provider: 'demo' } });
    const id = snapshot.session.id;
    const p = new Probe(asServer(s1));
    await p.wait((m) => m.type === 'welcome');
    p.send({ type: 'subscribe', sessionId: id });
    await c1.api.prompt({ params: { id }, body: { text: 'slow' } });
    await p.wait(() => p.events(id).length > 200);
    first.child.kill('SIGKILL');
    await first.done;
    const seen = p.events(id).at(-1)!.seq;
    // What the store holds after the kill, read directly.
    const store = openStore({ home: env.TALARIA_HOME!, readOnly: true });
    const frames = store.wire.count(id);
    const entries = JSON.parse(JSON.stringify(store.entries.list(id))) as unknown[];
    store.close();
    expect(frames).toBeGreaterThan(10);
    // The orphaned agent notices its client is gone and exits.
    await vi.waitUntil(() => agentPids(home).length === 0, { timeout: 60_000, interval: 100 });

    const second = startCli(['serve'], { cwd: home, env });
    const s2 = await started(second);
    const c2 = connectServer(s2.url, undefined, { WebSocket: WebSocket as unknown as WebSocketCtor });
    const { sessions } = await c2.api.listSessions();
    expect(sessions.map((x) => x.id)).toContain(id);
    const stored = await c2.api.snapshot({ params: { id } });
    expect(stored.snapshot.origin).toBe('stored');
    expect(JSON.parse(JSON.stringify(stored.snapshot.thread.entries))).toEqual(entries);
    const wire = await c2.api.wireLog({ params: { id }, query: { limit: 5000 } });
    expect(wire.frames.length).toBe(frames);
    // A client resuming from what it saw gets a snapshot or exact events, never someone else's.
    const q = new Probe(asServer(s2));
    await q.wait((m) => m.type === 'welcome');
    q.send({ type: 'subscribe', sessionId: id, since: seen });
    await q.wait((m) => m.type === 'synced');
    const reopened = await c2.api.openSession({ params: { id }, body: {} });
    expect(['loaded', 'resumed', 'restored']).toContain(reopened.snapshot.origin);
    await q.wait(isEvent(id, 'session.live'));
    const live = q.events(id).find((e) => e.type === 'session.live')!;
    expect(live.seq).toBeGreaterThan(seen);
    await c2.api.prompt({ params: { id }, body: { text: 'hello again' } });
    await q.wait(isEvent(id, 'turn.ended'));
    second.child.kill('SIGTERM');
    expect((await second.done).code).toBe(0);
    expect(agentPids(home)).toEqual([]);
  });
});
