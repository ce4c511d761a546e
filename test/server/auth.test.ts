/**
 * Sign-in over HTTP on a real server and harness, against the fake agent that wants a sign-in
 * (test/fakes/bin/auth-agent.ts, real ACP over pipes): a refused session leaves the `auth` gap
 * with its methods in GET /api/agents/:id/readiness; POST /api/agents/:id/login signs in with an
 * agent-type method and the gap goes; terminal and unknown methods, unknown agents and the
 * agent's refusal are clear errors that sign nothing in.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { AUTH_ROUTES } from '../../src/server/contract/index.js';
import { setupAuthServer } from './auth-helpers.js';
import { raw } from './helpers.js';

vi.setConfig({ testTimeout: 180_000 });

const json = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });

async function setup() {
  return { ...(await setupAuthServer()), json };
}

describe('sign-in over HTTP', () => {
  it('auth_required → the readiness gap lists the methods; an agent-type login clears it and a session opens', async () => {
    const { s, p, agentConfig, json } = await setup();
    expect((await raw(s.server, '/api/agents/authfake/readiness')).json).toMatchObject({
      provider: { id: 'authfake', ready: true, gaps: [] },
    });

    const { workspace } = await s.client.call('openWorkspace', { body: { path: p.userHome } });
    const refused = await raw(s.server, `/api/workspaces/${workspace.id}/sessions`, json({ provider: 'authfake' }));
    expect(refused.status).toBe(503);
    expect(refused.json.code).toBe('not_ready');

    const before = await raw(s.server, '/api/agents/authfake/readiness');
    expect(before.status).toBe(200);
    expect(AUTH_ROUTES.agentReadiness.response.safeParse(before.json).success).toBe(true);
    const gap = (
      before.json as {
        provider: { ready: boolean; gaps: { code: string; message: string; fix: string; authMethods: unknown[] }[] };
      }
    ).provider;
    expect(gap.ready).toBe(false);
    // The session listed agent methods only; the gap asked the agent as a sign-in does, so the
    // terminal methods are in the list and in the fix too (issue 13).
    expect(gap.gaps[0]).toMatchObject({
      code: 'auth',
      fix: 'talaria login authfake METHOD (one of: token, expired, setup, meta-setup)',
      authMethods: [
        { id: 'token', name: 'Use the built-in token', kind: 'agent', description: 'signs in without a terminal' },
        { id: 'expired', name: 'Use an expired token', kind: 'agent' },
        { id: 'setup', name: 'Set up a key', kind: 'terminal' },
        { id: 'meta-setup', kind: 'terminal' },
      ],
    });
    expect(gap.gaps[0]!.message).toMatch(/setup — Set up a key \(terminal\)/);

    // The all-agents readiness (the web's readiness page) carries the methods too.
    const all = (await s.client.call('readiness', { query: { refresh: 'true' } })).providers.find(
      (x) => x.id === 'authfake',
    )!;
    expect(all.gaps[0]).toMatchObject({
      code: 'auth',
      authMethods: [{ id: 'token' }, { id: 'expired' }, { id: 'setup' }, { id: 'meta-setup' }],
    });

    const login = await raw(s.server, '/api/agents/authfake/login', json({ methodId: 'token' }));
    expect(login.status).toBe(200);
    expect(AUTH_ROUTES.agentLogin.response.safeParse(login.json).success).toBe(true);
    expect(login.json).toMatchObject({ ok: true, provider: { id: 'authfake', ready: true, gaps: [] } });
    expect(existsSync(agentConfig)).toBe(true);
    expect((await raw(s.server, '/api/agents/authfake/readiness')).json).toMatchObject({
      provider: { ready: true, gaps: [] },
    });
    expect(
      (await raw(s.server, `/api/workspaces/${workspace.id}/sessions`, json({ provider: 'authfake' }))).status,
    ).toBe(200);
  });

  it('clear errors, nothing signed in: the agent refusing (502), a terminal method (409 with the command), an unknown method (400), an unknown agent (404), an observer (403)', async () => {
    const { s, agentConfig, json } = await setup();
    const refused = await raw(s.server, '/api/agents/authfake/login', json({ methodId: 'expired' }));
    expect(refused.status).toBe(502);
    expect(refused.json).toMatchObject({ code: 'agent_error' });
    expect(String(refused.json.message)).toContain(
      'authfake refused the sign-in with expired: Authentication required: token expired on 2026-01-01',
    );

    const terminal = await raw(s.server, '/api/agents/authfake/login', json({ methodId: 'setup' }));
    expect(terminal.status).toBe(409);
    expect(terminal.json).toMatchObject({
      code: 'conflict',
      fix: "Open it in the readiness page's terminal panel, or run `talaria login authfake setup` in a terminal.",
    });

    const unknown = await raw(s.server, '/api/agents/authfake/login', json({ methodId: 'nope' }));
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ code: 'invalid_argument', message: "authfake has no sign-in method 'nope'" });
    expect(String(unknown.json.fix)).toContain('token, expired, setup, meta-setup');

    expect((await raw(s.server, '/api/agents/nosuch/readiness')).status).toBe(404);
    expect((await raw(s.server, '/api/agents/nosuch/login', json({ methodId: 'token' }))).status).toBe(404);
    expect((await raw(s.server, '/api/agents/authfake/login', json({}))).status).toBe(400);
    const observer = s.server.tokens.addEphemeral('observer', 'test');
    expect(
      (await raw(s.server, '/api/agents/authfake/login', { ...json({ methodId: 'token' }), token: observer.token }))
        .status,
    ).toBe(403);
    expect(existsSync(agentConfig)).toBe(false);
  });
});
