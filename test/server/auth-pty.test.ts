/**
 * Terminal sign-in over the pty WebSocket (contract/auth.ts PTY_*), on a real server and harness
 * against the fake agent that wants a sign-in (test/fakes/bin/auth-agent.ts): its `setup` and
 * `meta-setup` methods run its interactive script in a real pty (util-linux `script`), the key is
 * typed over the socket, the gap goes without `?refresh`, and the faults: the socket closing
 * kills the command (no orphan), the server stopping too, a second sign-in gets 409, a wrong
 * method a clear error, no token 401, an observer 403.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { ptyPath, ptyServerMessage, type PtyServerMessage } from '../../src/server/contract/index.js';
import { descendants, ptyOf } from '../../src/server/pty-process.js';
import { setupAuthServer as setup } from './auth-helpers.js';
import { raw } from './helpers.js';

vi.setConfig({ testTimeout: 180_000 });

/** A pty socket that records the output (as text) and the control messages. */
class Term {
  readonly ws: WebSocket;
  out = '';
  readonly msgs: PtyServerMessage[] = [];
  status: number | undefined;
  body = '';
  readonly closed: Promise<number>;
  constructor(url: string, token: string | null) {
    this.ws = new WebSocket(url, ['talaria'], token ? { headers: { authorization: `Bearer ${token}` } } : {});
    this.ws.on('message', (d: Buffer, binary: boolean) => {
      if (binary) this.out += d.toString('utf8');
      else this.msgs.push(ptyServerMessage.parse(JSON.parse(d.toString('utf8'))));
    });
    this.ws.on('unexpected-response', (_req, res) => {
      this.status = res.statusCode;
      res.on('data', (c: Buffer) => (this.body += c.toString('utf8')));
      // With this listener ws leaves the refused handshake to us: end it once the body is read.
      res.on('end', () => this.ws.terminate());
    });
    this.ws.on('error', () => undefined);
    this.closed = new Promise((r) => this.ws.once('close', (code) => r(code)));
  }
  send(m: unknown): void {
    this.ws.send(JSON.stringify(m));
  }
  msg<T extends PtyServerMessage['type']>(type: T): Promise<Extract<PtyServerMessage, { type: T }>> {
    return vi.waitFor(
      () => {
        const m = this.msgs.find((x) => x.type === type);
        if (!m) throw new Error(`no ${type} yet: ${JSON.stringify(this.msgs)} ${this.out}`);
        return m as Extract<PtyServerMessage, { type: T }>;
      },
      { timeout: 60_000, interval: 50 },
    );
  }
  async sees(text: string): Promise<void> {
    await vi.waitFor(
      () => {
        if (!this.out.includes(text)) throw new Error(`not yet '${text}' in: ${this.out}`);
      },
      { timeout: 60_000, interval: 50 },
    );
  }
}

const term = (
  s: Awaited<ReturnType<typeof setup>>['s'],
  id: string,
  query: string,
  token: string | null = s.server.token,
) => new Term(`ws://127.0.0.1:${s.server.port}${ptyPath(id)}?${query}`, token);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('terminal sign-in over the pty WebSocket', () => {
  it('the gap, then the key typed into the pty: exit 0, ready for real, /api/readiness fresh without ?refresh, a session opens; resize reaches the pty', async () => {
    const { s, p, agentConfig } = await setup();
    const { workspace } = await s.client.call('openWorkspace', { body: { path: p.userHome } });
    const json = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });
    expect(
      (await raw(s.server, `/api/workspaces/${workspace.id}/sessions`, json({ provider: 'authfake' }))).status,
    ).toBe(503);
    // Cached with the gap: the sign-in must make this answer stale.
    const before = (await s.client.call('readiness', { query: { refresh: 'true' } })).providers.find(
      (x) => x.id === 'authfake',
    )!;
    expect(before).toMatchObject({ ready: false, gaps: [{ code: 'auth' }] });

    // The gap came from an everyday session (no terminal auth offered), and asked the agent as a sign-in
    // does: it names the terminal methods too, as the login route lists them.
    expect(before.gaps[0]).toMatchObject({
      fix: 'talaria login authfake METHOD (one of: token, expired, setup, meta-setup)',
    });
    const listed = await raw(s.server, '/api/agents/authfake/login');
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual({
      methods: [
        { id: 'token', name: 'Use the built-in token', kind: 'agent', description: 'signs in without a terminal' },
        { id: 'expired', name: 'Use an expired token', kind: 'agent' },
        { id: 'setup', name: 'Set up a key', kind: 'terminal' },
        { id: 'meta-setup', name: 'Set up a key (terminal-auth)', kind: 'terminal' },
      ],
    });
    expect(
      (
        await raw(s.server, '/api/agents/authfake/login', {
          token: s.server.tokens.addEphemeral('observer', 'test').token,
        })
      ).status,
    ).toBe(403);

    const t = term(s, 'authfake', 'method=setup&cols=100&rows=30');
    const started = await t.msg('started');
    expect(started.command).toContain('--setup');
    await t.sees('Enter your API key: ');
    const pts = ptyOf(started.pid);
    if (!pts) throw new Error('no pty under the relay');
    expect(execFileSync('stty', ['-F', pts, 'size'], { encoding: 'utf8' }).trim()).toBe('30 100');
    t.send({ type: 'resize', cols: 120, rows: 40 });
    await vi.waitFor(
      () => expect(execFileSync('stty', ['-F', pts, 'size'], { encoding: 'utf8' }).trim()).toBe('40 120'),
      { timeout: 20_000 },
    );
    t.send({ type: 'input', data: 'sk-web-1234\r' });
    expect(await t.msg('exit')).toMatchObject({ code: 0, signal: null });
    expect(await t.msg('result')).toMatchObject({ ok: true, provider: { id: 'authfake', ready: true, gaps: [] } });
    expect(await t.closed).toBe(1000);
    expect(t.out).toContain('Saved a key of 11 characters.');
    expect(existsSync(agentConfig)).toBe(true);

    const after = (await s.client.call('readiness', {})).providers.find((x) => x.id === 'authfake')!;
    expect(after).toMatchObject({ ready: true, gaps: [] });
    expect(
      (await raw(s.server, `/api/workspaces/${workspace.id}/sessions`, json({ provider: 'authfake' }))).status,
    ).toBe(200);
  });

  it('the _meta terminal-auth form runs its own command; a failed command (no key) is ok: false with the gap still there', async () => {
    const { s, agentConfig } = await setup();
    const t = term(s, 'authfake', 'method=meta-setup');
    await t.sees('Enter your API key: ');
    t.send({ type: 'input', data: '\r' });
    expect(await t.msg('exit')).toMatchObject({ code: 1 });
    const r = await t.msg('result');
    expect(r).toMatchObject({ ok: false, provider: { ready: false, gaps: [{ code: 'auth' }] } });
    expect(t.out).toContain('No key given; nothing saved.');
    expect(existsSync(agentConfig)).toBe(false);
  });

  it('closing the socket mid-sign-in kills the command and everything under it (no orphan); the agent is free again after', async () => {
    const { s } = await setup();
    const t = term(s, 'authfake', 'method=setup');
    const { pid } = await t.msg('started');
    await t.sees('Enter your API key: ');
    const tree = [pid, ...descendants(pid)];
    expect(tree.length).toBeGreaterThan(1);
    t.ws.close();
    await vi.waitFor(() => expect(tree.filter(alive)).toEqual([]), { timeout: 20_000, interval: 50 });
    const again = term(s, 'authfake', 'method=setup');
    await again.sees('Enter your API key: ');
    again.ws.close();
    await again.closed;
  });

  it('a second sign-in to the same agent while one runs gets 409; stopping the server kills the running command', async () => {
    const { s } = await setup();
    const t = term(s, 'authfake', 'method=setup');
    const { pid } = await t.msg('started');
    await t.sees('Enter your API key: ');
    const second = term(s, 'authfake', 'method=setup');
    await second.closed;
    expect(second.status).toBe(409);
    expect(JSON.parse(second.body)).toMatchObject({
      code: 'conflict',
      message: 'a sign-in to authfake is already running',
    });

    const tree = [pid, ...descendants(pid)];
    await s.server.close();
    expect(await t.closed).toBe(1001);
    await vi.waitFor(() => expect(tree.filter(alive)).toEqual([]), { timeout: 20_000, interval: 50 });
  });

  it('clear errors: an unknown method and an agent method after the upgrade; no token 401, observer 403, unknown agent 404, no method 400 before it', async () => {
    const { s, agentConfig } = await setup();
    const wrong = term(s, 'authfake', 'method=nope');
    expect(await wrong.msg('error')).toMatchObject({
      code: 'invalid_argument',
      message: "authfake has no sign-in method 'nope'",
      fix: 'It lists: token, expired, setup, meta-setup.',
    });
    await wrong.closed;
    const agentKind = term(s, 'authfake', 'method=token');
    expect(await agentKind.msg('error')).toMatchObject({
      code: 'invalid_argument',
      message: 'token is not a terminal sign-in',
    });
    await agentKind.closed;

    const cases: [Term, number][] = [
      [term(s, 'authfake', 'method=setup', null), 401],
      [term(s, 'authfake', 'method=setup', s.server.tokens.addEphemeral('observer', 'test').token), 403],
      [term(s, 'nosuch', 'method=setup'), 404],
      [term(s, 'authfake', 'cols=80'), 400],
      [term(s, 'authfake', 'method=setup&cols=abc&rows=2'), 400],
    ];
    for (const [t, status] of cases) {
      await t.closed;
      expect(t.status).toBe(status);
    }
    expect(JSON.parse(cases[1]![0].body)).toMatchObject({ code: 'forbidden' });
    expect(existsSync(agentConfig)).toBe(false);
    expect((await s.client.call('readiness', {})).providers.find((x) => x.id === 'authfake')).toBeDefined();
  });
});
