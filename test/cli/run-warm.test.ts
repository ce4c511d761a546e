import { describe, it, expect, vi, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import WebSocket from 'ws';
import { connectServer, type ServerClient, type WebSocketCtor } from '../../src/server/client/index.js';
import { discoveryFile, readDiscovery, type ServerDiscovery } from '../../src/cli/server-discovery.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { BIN, TmuxPane, allowEditOnPane, demoEnv, hasTmux, runCli, startCli, tempDir, type CliRun } from './helpers.js';
import { until } from '../until.js';

// A real `talaria serve` (child) and several real CLI runs (children) per test, one test at a time: the machine may be busy.
vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 240_000) });

/** `talaria run` on a warm server (issue 16): the run goes through a running `talaria serve` on the same home. */

const servers: CliRun[] = [];
afterAll(async () => {
  for (const s of servers.splice(0)) {
    s.child.kill('SIGINT');
    await s.done;
  }
});

interface Warm {
  cwd: string;
  env: Record<string, string>;
  serve: CliRun;
  found: ServerDiscovery;
  client: ServerClient;
}

async function warmServer(extra: Record<string, string> = {}): Promise<Warm> {
  const cwd = tempDir('warm');
  writeFileSync(join(cwd, 'notes.txt'), 'hello notes\n');
  const env = demoEnv(tempDir('warm-home'));
  const serve = startCli(['serve', '--grace', '0'], { cwd, env: { ...env, ...extra } });
  servers.push(serve);
  const file = discoveryFile(env.TALARIA_HOME!);
  await Promise.race([
    until(() => readDiscovery(env.TALARIA_HOME!) !== undefined, { what: 'serve.json', ms: 60_000, every: 20 }),
    serve.done.then(() => Promise.reject(new Error(`serve exited: ${serve.stderr()}`))),
  ]);
  const found = readDiscovery(env.TALARIA_HOME!)!;
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const client = connectServer(found.url, found.token, { WebSocket: WebSocket as unknown as WebSocketCtor });
  return { cwd, env, serve, found, client };
}

async function liveOnServer(client: ServerClient, sessionId: string): Promise<boolean | undefined> {
  const { sessions } = await client.api.listSessions({});
  return sessions.find((s) => s.id === sessionId)?.live;
}

describe('talaria run on a warm server', () => {
  it('runs through the server: same stdout, stderr and exit code as local; the session is a live server session', async () => {
    const w = await warmServer();
    const remote = await runCli(['run', 'hello', 'there'], { cwd: w.cwd, env: w.env });
    const local = await runCli(['run', '--no-server', 'hello', 'there'], { cwd: w.cwd, env: w.env });
    expect(remote.code).toBe(EXIT.OK);
    expect(remote.stdout).toContain('You said: "hello there"');
    expect(remote.stdout).toBe(local.stdout);
    expect(remote.stderr).toBe(local.stderr);
    expect(remote.code).toBe(local.code);
    // --json: the same result shape, and the session is open in the server (the web UI lists it).
    const j = await runCli(['run', '--json', 'read notes.txt'], { cwd: w.cwd, env: w.env });
    expect(j.code).toBe(EXIT.OK);
    const res = JSON.parse(j.stdout) as { sessionId: string; text: string; toolCalls: unknown[]; stopReason: string };
    expect(res).toMatchObject({ v: 1, stopReason: 'end_turn', exitCode: 0 });
    expect(res.text).toContain('I read notes.txt');
    expect(res.toolCalls).toEqual([
      expect.objectContaining({ title: 'Read notes.txt', kind: 'read', status: 'completed' }),
    ]);
    expect(await liveOnServer(w.client, res.sessionId)).toBe(true);
    // --session continues it through the server.
    const again = await runCli(['run', '--json', '--session', res.sessionId, 'second prompt'], {
      cwd: w.cwd,
      env: w.env,
    });
    expect(again.code).toBe(EXIT.OK);
    expect(JSON.parse(again.stdout)).toMatchObject({
      sessionId: res.sessionId,
      text: expect.stringContaining('second prompt'),
    });
    // The token is never printed.
    for (const out of [remote.stdout, remote.stderr, j.stdout, j.stderr, w.serve.stdout(), w.serve.stderr()])
      expect(out).not.toContain(w.found.token);
  });

  it('--no-server and TALARIA_NO_SERVER=1 keep the run local', async () => {
    const w = await warmServer();
    const flagged = await runCli(['run', '--json', '--no-server', 'hello'], { cwd: w.cwd, env: w.env });
    const envd = await runCli(['run', '--json', 'hello'], { cwd: w.cwd, env: { ...w.env, TALARIA_NO_SERVER: '1' } });
    for (const r of [flagged, envd]) {
      expect(r.code).toBe(EXIT.OK);
      const id = (JSON.parse(r.stdout) as { sessionId: string }).sessionId;
      // Stored (the same home) but never attached to the server.
      expect(await liveOnServer(w.client, id)).toBe(false);
    }
  });

  it('a stale serve.json (dead pid) is ignored: the run works locally', async () => {
    const w = await warmServer();
    // A pid that is surely gone: a child that already exited.
    const dead = spawn(process.execPath, ['-e', '0']);
    const deadPid = dead.pid!;
    await new Promise((r) => dead.on('close', r));
    // Everything else is valid (the live server's url and token): only the pid says stale.
    const stale = { ...w.found, pid: deadPid };
    writeFileSync(discoveryFile(w.env.TALARIA_HOME!), JSON.stringify(stale), { mode: 0o600 });
    const r = await runCli(['run', '--json', '--verbose', 'hello'], { cwd: w.cwd, env: w.env });
    expect(r.code).toBe(EXIT.OK);
    expect(r.stderr).toContain('is stale');
    const id = (JSON.parse(r.stdout) as { sessionId: string }).sessionId;
    expect(await liveOnServer(w.client, id)).toBe(false);
  });

  it('a stale serve.json whose pid is alive (the server gone, or one that never answers) leaves the run local', async () => {
    const w = await warmServer();
    // A port nobody listens on, and one that accepts connections but never answers (a hung server).
    const gone = createNetServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const gonePort = (gone.address() as AddressInfo).port;
    await new Promise((r) => gone.close(r));
    const hung = createNetServer(() => undefined);
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    try {
      for (const [port, why] of [
        [gonePort, 'ECONNREFUSED'],
        [(hung.address() as AddressInfo).port, 'no answer within 1000 ms'],
      ] as const) {
        // This test's own pid: alive, so only the connection can tell the file is stale.
        const stale = { ...w.found, pid: process.pid, url: `http://127.0.0.1:${port}` };
        writeFileSync(discoveryFile(w.env.TALARIA_HOME!), JSON.stringify(stale), { mode: 0o600 });
        const r = await runCli(['run', '--json', '--verbose', 'hello'], { cwd: w.cwd, env: w.env });
        expect(r.code).toBe(EXIT.OK);
        expect(r.stderr).toContain('does not answer');
        expect(r.stderr).toContain(why);
        expect(r.stderr).toContain('running locally');
        const id = (JSON.parse(r.stdout) as { sessionId: string }).sessionId;
        expect(await liveOnServer(w.client, id)).toBe(false);
      }
    } finally {
      hung.close();
    }
  });

  it('a session the server cannot open is tried once, then the run is local (which says what is wrong)', async () => {
    const w = await warmServer();
    const r = await runCli(['run', '--verbose', '--session', 'no-such-session', 'hello'], { cwd: w.cwd, env: w.env });
    expect(r.stderr.split('could not open the session').length - 1).toBe(1);
    expect(r.stderr).toContain('running locally');
    expect(r.code).not.toBe(EXIT.OK);
  });

  it('approval through the server: no terminal rejects the write like local; --approve all writes it', async () => {
    const w = await warmServer();
    const remote = await runCli(['run', 'edit notes.txt'], { cwd: w.cwd, env: w.env });
    const local = await runCli(['run', '--no-server', 'edit notes.txt'], { cwd: w.cwd, env: w.env });
    expect(remote.stderr).toContain('no terminal to ask on');
    expect(remote.stdout).toBe(local.stdout);
    expect(remote.stderr).toBe(local.stderr);
    expect(remote.code).toBe(local.code);
    expect(readFileSync(join(w.cwd, 'notes.txt'), 'utf8')).toBe('hello notes\n');
    const all = await runCli(['run', '--json', '--approve', 'all', 'edit notes.txt'], { cwd: w.cwd, env: w.env });
    expect(all.code).toBe(EXIT.OK);
    const j = JSON.parse(all.stdout) as { sessionId: string; toolCalls: { status: string }[] };
    expect(j.toolCalls[0]).toMatchObject({ status: 'completed' });
    expect(readFileSync(join(w.cwd, 'notes.txt'), 'utf8')).not.toBe('hello notes\n');
    expect(await liveOnServer(w.client, j.sessionId)).toBe(true);
  });

  it("SIGINT cancels the server's turn: exit 130, the server's session is idle again", async () => {
    const w = await warmServer({ TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '5' });
    const cli = startCli(['run', '--verbose', 'slow'], { cwd: w.cwd, env: w.env });
    await cli.until((out, err) => out.includes('Chunk 1 of') && err.includes('using the server'));
    const id = /session (\S+)\)/.exec(cli.stderr())![1]!;
    cli.child.kill('SIGINT');
    const r = await cli.done;
    expect(r.code).toBe(EXIT.CANCELLED);
    expect(r.stderr).toContain('talaria run: cancelled');
    const { snapshot } = await w.client.api.snapshot({ params: { id } });
    expect(snapshot.turnId).toBeUndefined();
    expect(snapshot.session.state).toBe('idle');
  });

  it("--session behind someone else's turn: Ctrl-C takes only the run's queued prompt off the queue (exit 130), and so does a removal elsewhere; the running turn goes on", async () => {
    const w = await warmServer({ TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '5' });
    const { workspace } = await w.client.api.openWorkspace({ body: { path: w.cwd } });
    const id = (await w.client.api.createSession({ params: { id: workspace.id }, body: { provider: 'demo' } })).snapshot
      .session.id;
    const other = await w.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    const queued = () =>
      until(
        async () => {
          const { queue } = await w.client.api.queue({ params: { id } });
          return queue.length === 1 ? queue[0] : undefined;
        },
        { what: "the run's queued prompt", every: 20 },
      );
    const left = "the prompt left the session's queue without a turn of its own";

    const cli = startCli(['run', '--verbose', '--session', id, 'hello queued'], { cwd: w.cwd, env: w.env });
    await queued();
    await cli.until((_, err) => err.includes('using the server'));
    cli.child.kill('SIGINT');
    const r = await cli.done;
    expect([r.code, r.signal], r.stderr).toEqual([EXIT.CANCELLED, null]);
    expect(r.stderr).toContain(left);
    // The other turn's text is not this run's answer.
    expect(r.stdout).not.toContain('Chunk');
    let { snapshot } = await w.client.api.snapshot({ params: { id } });
    expect([snapshot.turnId, snapshot.queue]).toEqual([other.id, []]);

    const again = startCli(['run', '--verbose', '--session', id, 'hello again'], { cwd: w.cwd, env: w.env });
    const item = await queued();
    await again.until((_, err) => err.includes('using the server'));
    await w.client.api.removeQueued({ params: { id, item: item.id } });
    const r2 = await again.done;
    expect([r2.code, r2.signal], r2.stderr).toEqual([EXIT.CANCELLED, null]);
    expect(r2.stderr).toContain(left);
    ({ snapshot } = await w.client.api.snapshot({ params: { id } }));
    expect([snapshot.turnId, snapshot.queue]).toEqual([other.id, []]);
    expect(JSON.stringify(snapshot.thread.entries)).not.toContain('hello queued');
    await w.client.api.cancel({ params: { id } });
  });

  it('Ctrl-C while the prompt is still being sent (before the server answered): the run takes it back off the queue and exits 130, never killed by the signal', async () => {
    const w = await warmServer({ TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '5' });
    const { workspace } = await w.client.api.openWorkspace({ body: { path: w.cwd } });
    const id = (await w.client.api.createSession({ params: { id: workspace.id }, body: { provider: 'demo' } })).snapshot
      .session.id;
    const other = await w.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    const cli = startCli(['run', '--session', id, 'hello early'], {
      cwd: w.cwd,
      env: { ...w.env, TALARIA_RUN_TRACE: '1' },
    });
    // 'loaded': the run's code is running, its request to the server not yet answered.
    await cli.until((_, err) => /^trace loaded /m.test(err));
    cli.child.kill('SIGINT');
    const r = await cli.done;
    expect([r.code, r.signal], r.stderr).toEqual([EXIT.CANCELLED, null]);
    expect(r.stderr).toContain('Cancelling the turn');
    const { snapshot } = await w.client.api.snapshot({ params: { id } });
    expect([snapshot.turnId, snapshot.queue]).toEqual([other.id, []]);
    await w.client.api.cancel({ params: { id } });
  });

  it('--session behind a running turn, steered from the queue ("Steer now" on it elsewhere): the run follows its prompt into the turn that carries it and prints that answer', async () => {
    const w = await warmServer({ TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '5' });
    const { workspace } = await w.client.api.openWorkspace({ body: { path: w.cwd } });
    const id = (await w.client.api.createSession({ params: { id: workspace.id }, body: { provider: 'demo' } })).snapshot
      .session.id;
    await w.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    const cli = startCli(['run', '--verbose', '--session', id, 'about rivers'], { cwd: w.cwd, env: w.env });
    const item = await until(async () => (await w.client.api.queue({ params: { id } })).queue[0], {
      what: "the run's queued prompt",
      every: 20,
    });
    await cli.until((_, err) => err.includes('using the server'));
    // The demo agent has no steering of its own: the running turn is cancelled and resent with it.
    const r = await w.client.api.steer({ params: { id }, body: { queued: item.id } });
    expect(r.how).toBe('resent');
    const done = await cli.done;
    expect(done.code).toBe(EXIT.OK);
    expect(done.stderr).not.toContain('left the session');
    // The resent turn's answer (the demo answers the run's words, not Talaria's wrapper), not the slow turn's chunks.
    expect(done.stdout).toContain('You said: "about rivers"');
    expect(done.stdout).not.toContain('Chunk 1 of');
    const { snapshot } = await w.client.api.snapshot({ params: { id } });
    expect([snapshot.turnId, snapshot.queue]).toEqual([undefined, []]);
    expect(
      (snapshot.thread.entries as { kind: string; text?: string }[])
        .filter((e) => e.kind === 'user_message')
        .map((e) => e.text),
    ).toEqual(['slow', 'about rivers']);
  });

  it('a server that dies mid-turn ends the run at once with an error, not a hang', async () => {
    const w = await warmServer({ TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '5' });
    const cli = startCli(['run', '--verbose', 'slow'], { cwd: w.cwd, env: w.env });
    await cli.until((out, err) => out.includes('Chunk 1 of') && err.includes('using the server'));
    w.serve.child.kill('SIGKILL');
    const r = await cli.done;
    expect(r.code).toBe(EXIT.AGENT_ERROR);
    expect(r.stderr).toContain('the server closed the connection before the turn ended');
    // What was streamed so far was printed, and is not run again locally.
    expect(r.stdout).toContain('Chunk 1 of');
    expect(r.stderr).not.toContain('running locally');
  });

  it('serve removes serve.json when it stops', async () => {
    const w = await warmServer();
    w.serve.child.kill('SIGINT');
    await w.serve.done;
    expect(existsSync(discoveryFile(w.env.TALARIA_HOME!))).toBe(false);
  });
});

// Skipped only on a machine without tmux; in CI (CI set) a missing tmux fails loudly instead.
describe.runIf(hasTmux() || Boolean(process.env.CI))('talaria run on a warm server, on a terminal (tmux)', () => {
  it('the ask is a question on the terminal, answered through the server: y allows the edit', async () => {
    const w = await warmServer();
    const pane = new TmuxPane([process.execPath, BIN, 'run', '--verbose', 'edit notes.txt'], {
      cwd: w.cwd,
      env: { ...w.env, PATH: process.env.PATH ?? '' },
    });
    try {
      const screen = await allowEditOnPane(pane);
      expect(screen).toContain('Done: notes.txt was edited by the demo agent.');
      expect(screen).toContain('EXITED=0');
      expect(readFileSync(join(w.cwd, 'notes.txt'), 'utf8')).toBe('hello notes\nEdited by the Talaria demo agent.\n');
      // It went through the server: the session is live there, answered by this terminal.
      const { sessions } = await w.client.api.listSessions({});
      expect(sessions.filter((s) => s.live)).toHaveLength(1);
    } finally {
      pane.kill();
    }
  });

  it("Ctrl-C's notice mid-answer starts a line of its own, as on a local run", async () => {
    const w = await warmServer({ TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '5' });
    const pane = new TmuxPane([process.execPath, BIN, 'run', '--verbose', 'slow'], {
      cwd: w.cwd,
      env: { ...w.env, PATH: process.env.PATH ?? '' },
      width: 160,
    });
    try {
      await pane.waitFor((s) => s.includes('using the server') && s.includes('Chunk 3 of'));
      pane.keys('C-c');
      const screen = await pane.waitFor((s) => s.includes('EXITED='));
      expect(screen).toContain('EXITED=130');
      expect(screen.split('\n').filter((l) => l.includes('Chunk') && l.includes('Cancelling'))).toEqual([]);
      expect(screen).toMatch(/^Cancelling the turn/m);
    } finally {
      pane.kill();
    }
  });
});
