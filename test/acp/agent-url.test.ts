/**
 * `--agent-url`: an ACP server over WebSocket as a provider. One `talaria serve` (in process) hosts
 * the demo agent and the Hermes emulator; a second Talaria (the real CLI) uses them by URL. A link
 * dropped mid-turn (a real TCP relay cut) loses that turn, and the next one reconnects and loads the
 * same remote session.
 */
import { createServer, connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runCli, tempDir } from '../cli/helpers.js';
import { expectValidWire } from '../fakes/wire.js';
import { serve } from '../server/helpers.js';
import { agentText, editorEnv, startEditor } from './helpers.js';

vi.setConfig({ testTimeout: 240_000 });

const INIT = { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'test-editor', version: '1' } };
const relays: { close(): void }[] = [];
afterAll(() => relays.splice(0).forEach((r) => r.close()));

/** A TCP relay on 127.0.0.2:`port` to 127.0.0.1:`port` whose live connections can be cut (a dropped link). */
async function relay(port: number): Promise<{ cut(): number; close(): void }> {
  const live = new Set<Socket>();
  const srv = createServer((a) => {
    const b = connect(port, '127.0.0.1');
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      live.add(x);
      x.on('error', () => y.destroy());
      x.on('close', () => (live.delete(x), y.destroy()));
      x.pipe(y);
    }
  });
  await new Promise<void>((r) => srv.listen(port, '127.0.0.2', () => r()));
  const r = {
    cut: () => {
      const n = live.size;
      for (const s of live) s.destroy();
      return n;
    },
    close: () => {
      r.cut();
      srv.close();
    },
  };
  relays.push(r);
  return r;
}

describe.concurrent('an agent by URL (another Talaria serving /acp)', () => {
  it('talaria run --agent-url: the demo agent and the Hermes emulator served by one talaria serve', async () => {
    const s = await serve({ hermes: true, permission: 'auto' });
    const { env } = editorEnv();
    const cwd = tempDir('acp-url');
    for (const [agent, prompt, expected] of [
      ['demo', 'hello', /./],
      ['hermes', 'hello', /./],
    ] as const) {
      const url = `ws://127.0.0.1:${s.server.port}/acp?agent=${agent}&cwd=${encodeURIComponent(s.p.userHome)}#token=${s.server.token}`;
      const r = await runCli(['run', '--json', '--approve', 'all', '--agent-url', url, prompt], { cwd, env });
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout) as { text: string; stopReason: string; sessionId: string };
      expect(j.stopReason).toBe('end_turn');
      expect(j.text).toMatch(expected);
      // The token never shows.
      expect(r.stdout + r.stderr).not.toContain(s.server.token);
    }
    // Both ran as live sessions of the serving Talaria.
    const { sessions } = await s.client.api.listSessions();
    expect(new Set(sessions.map((x) => x.provider))).toEqual(new Set(['demo', 'hermes']));
  });

  it('a link dropped mid-turn: that turn fails (ACP v1 replays nothing in flight), the next one reconnects and loads the same remote session', async () => {
    // The relay is another loopback address on the same port (the server accepts that Host); the
    // demo agent streams slowly, so the cut lands inside the first turn.
    const s = await serve({
      allowHosts: ['127.0.0.2'],
      vars: { TALARIA_DEMO_SLOW_CHUNKS: '400', TALARIA_DEMO_SLOW_DELAY_MS: '25' },
    });
    const link = await relay(s.server.port);
    const { env } = editorEnv();
    const cwd = tempDir('acp-url');
    const url = `ws://127.0.0.2:${s.server.port}/acp?agent=demo&cwd=${encodeURIComponent(s.p.userHome)}#token=${s.server.token}`;
    const ed = startEditor(['--approve', 'all', '--agent-url', url], { cwd, env });
    await ed.request('initialize', INIT);
    const { sessionId } = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    const first = ed.request<any>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'slow' }] }).then(
      (r) => ({ ok: r }),
      (e: unknown) => ({ error: e as { message: string } }),
    );
    await ed.until(() => agentText(ed.updates, sessionId).includes('Chunk 3 '), 'the first chunks');
    const remote = [...s.server.hub.live.keys()];
    expect(remote).toHaveLength(1);
    expect(link.cut()).toBeGreaterThan(0);
    const lost = await first;
    expect('error' in lost && lost.error.message).toMatch(/the server closed the connection/);
    const before = agentText(ed.updates, sessionId).length;
    const r2 = await ed.request<any>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello again' }] });
    expect(r2.stopReason).toBe('end_turn');
    expect(agentText(ed.updates, sessionId).length).toBeGreaterThan(before);
    // The same remote session, loaded again (no second one was made); both prompts reached it.
    expect([...s.server.hub.live.keys()]).toEqual(remote);
    const asked = s.server.hub
      .get(remote[0]!)!
      .hs.thread.entries.filter((e) => e.kind === 'user_message')
      .map((e) => (e as { text: string }).text);
    expect(asked).toEqual(['slow', 'hello again']);
    await ed.close();
    expectValidWire(ed.frames);
  });

  it('refuses plain ws:// to a non-loopback host before connecting, the token never shown', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-url');
    const r = await runCli(['run', '--agent-url', 'ws://192.0.2.7:4000/acp#token=abc', 'hello'], { cwd, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--agent-url: refusing plain ws:\/\/ to 192\.0\.2\.7, which is not loopback/);
    expect(r.stderr).not.toContain('abc');
  });
});
