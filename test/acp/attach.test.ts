/**
 * `talaria acp --attach URL`: the real CLI in a child process, the SDK client on its stdio, going
 * through to an in-process `talaria serve`'s `/acp`. The editor's session is the server's live
 * session: a `/ws` subscriber sees the editor's turn, and the session list shows it.
 */
import { describe, expect, it, vi } from 'vitest';
import { runCli, tempDir } from '../cli/helpers.js';
import { expectValidWire } from '../fakes/wire.js';
import { isEvent, serve, watching } from '../server/helpers.js';
import { agentText, startEditor } from './helpers.js';

vi.setConfig({ testTimeout: 240_000 });

const INIT = { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'test-editor', version: '1' } };

describe.concurrent('talaria acp --attach', () => {
  it("goes through to serve's /acp with the printed link: one live session for the editor and the browser", async () => {
    const s = await serve();
    const cwd = s.p.userHome;
    // The link serve prints (http://…/#token=…), the agent by flag.
    const ed = startEditor(['--attach', s.server.url, '--agent', 'demo', '--cwd', cwd], {
      cwd,
      env: { TALARIA_HOME: tempDir('acp-attach-home') },
    });
    const init = await ed.request<any>('initialize', INIT);
    expect(init.agentInfo).toMatchObject({ name: 'talaria' });
    expect(init._meta.talaria.provider).toBe('demo');
    const { sessionId } = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    // The agent warmed up at initialize in the editor's folder (--cwd), so session/new took that session.
    expect((await s.client.api.listSessions({ query: { archived: 'include' } })).sessions.map((x) => x.id)).toEqual([
      sessionId,
    ]);
    const ui = await watching(s.server, sessionId);
    const r = await ed.request<any>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    expect(r.stopReason).toBe('end_turn');
    expect(agentText(ed.updates, sessionId).length).toBeGreaterThan(0);
    await ui.wait(isEvent(sessionId, 'turn.ended'));
    const { sessions } = await s.client.api.listSessions();
    expect(sessions.find((x) => x.id === sessionId)?.live).toBe(true);
    // Bad input from the editor: a parse error, the link stays up.
    ed.raw('not json\n');
    await ed.until(
      () =>
        ed.frames.some(
          (f) => f.dir === 'agent->client' && (f.msg as { error?: { code: number } }).error?.code === -32700,
        ),
      'the parse error',
    );
    expect(
      (await ed.request<any>('session/list', {})).sessions.map((x: { sessionId: string }) => x.sessionId),
    ).toContain(sessionId);
    expect(await ed.close()).toBe(0);
    expect(ed.noise).toEqual([]);
    expectValidWire(ed.frames.filter((f) => !(f.dir === 'agent->client' && f.msg.id === null)));
    ui.close();
  });

  it('a wrong token: a clear error on stderr and a non-zero exit; plain ws:// off loopback is refused before connecting', async () => {
    const s = await serve();
    const cwd = tempDir('acp-attach');
    const env = { TALARIA_HOME: tempDir('acp-attach-home') };
    const bad = await runCli(['acp', '--attach', `${s.server.origin}/#token=wrong`], { cwd, env });
    expect(bad.code).toBe(6);
    expect(bad.stderr).toMatch(
      /talaria acp: the connection to ws:\/\/127\.0\.0\.1:\d+\/acp failed: HTTP 401 Unauthorized/,
    );
    expect(bad.stdout).toBe('');
    const plain = await runCli(['acp', '--attach', 'ws://10.1.2.3:4000/acp#token=abc'], { cwd, env });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/refusing plain ws:\/\/ to 10\.1\.2\.3, which is not loopback/);
    const noToken = await runCli(['acp', '--attach', `${s.server.origin}/acp`], {
      cwd,
      env: { ...env, TALARIA_TOKEN: '' },
    });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/needs a token/);
  });

  it('an editor that stops reading mid-turn: talaria acp stops reading the server, which disconnects it past its bound; the session stays live', async () => {
    const warned: string[] = [];
    const logger = {
      debug: () => undefined,
      info: () => undefined,
      error: () => undefined,
      warn: (m: string) => void warned.push(m),
    };
    const chunks = 300_000;
    // 1 MiB unread on the server's side, after the kernel's socket buffers (a few MB) are full.
    const s = await serve({
      logger,
      maxAcpUnreadBytes: 1024 * 1024,
      vars: { TALARIA_DEMO_SLOW_CHUNKS: String(chunks), TALARIA_DEMO_SLOW_DELAY_MS: '0' },
    });
    const cwd = s.p.userHome;
    const ed = startEditor(['--attach', s.server.url, '--agent', 'demo', '--cwd', cwd], {
      cwd,
      env: { TALARIA_HOME: tempDir('acp-attach-home') },
    });
    await ed.request('initialize', INIT);
    const { sessionId } = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    const turn = ed
      .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'slow' }] })
      .catch((e: unknown) => e);
    await ed.until(() => agentText(ed.updates, sessionId).includes('Chunk 1 of'), 'the first chunk');
    ed.child.stdout.pause(); // the editor stops reading
    const idle = async () =>
      (await s.client.api.listSessions({})).sessions.find((x) => x.id === sessionId)?.state === 'idle';
    await vi.waitFor(
      async () => {
        if (!warned.some((w) => w.includes('stopped reading')) && !(await idle())) throw new Error('still streaming');
      },
      { timeout: 60_000, interval: 50 },
    );
    // talaria acp stopped reading the socket in turn (else the server's side never fills: it
    // would hold the whole turn in its own memory), and the server let it go.
    expect(warned.filter((w) => w.includes('a client that stopped reading was disconnected'))).toHaveLength(1);
    // The editor reads again: it gets what was on its way, then talaria acp says the link dropped.
    const exited = new Promise<number | null>((r) => ed.child.on('close', (code) => r(code)));
    ed.child.stdout.resume();
    expect(await exited).toBe(6);
    expect(ed.stderr()).toMatch(/the server closed the connection/);
    // The editor's prompt fails (its link is gone); as whenever an editor leaves, its turn is
    // cancelled and its session stays live on the server, idle again.
    expect(await turn).toBeInstanceOf(Error);
    await vi.waitFor(
      async () => {
        if (!(await idle())) throw new Error('the session is not idle again');
      },
      { timeout: 30_000, interval: 50 },
    );
    const { snapshot } = await s.client.api.snapshot({ params: { id: sessionId } });
    expect(snapshot.session.live).toBe(true);
  });
});
