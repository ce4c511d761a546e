/**
 * The host leaves the auth_required mark (providers/auth.ts) that readiness shows as an `auth`
 * gap: at a prompt, at session/new (Hermes' "run hermes setup", with initialize's methods), and
 * removes it when a session opens again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readAuthMark } from '../../src/providers/auth.js';
import { hermesHome, makeHost, scriptAgent, shutdownHosts, tempDir } from './helpers.js';

afterEach(shutdownHosts);

describe('auth_required marks', () => {
  it("a prompt answered -32000 leaves a mark with the agent's methods; the next session that opens removes it", async () => {
    const authHome = tempDir();
    const agent = scriptAgent('locked', 'host-agent.ts', { env: { HOST_AGENT_AUTH: '1' } });
    const t = makeHost({ providers: [agent], authHome });
    const s = await t.host.newSession({ provider: agent.id, workspace: t.workspace });
    expect((await s.prompt('auth').result).error?.code).toBe('auth_required');
    expect(readAuthMark(authHome, agent.id)).toMatchObject({
      providerId: agent.id,
      message: `${agent.label} needs credentials: Authentication required; sign in with one of: agent-login`,
      methods: [{ id: 'agent-login', name: 'Log in to the agent', kind: 'agent' }],
      where: 'request',
    });
    await t.host.newSession({ provider: agent.id, workspace: t.workspace });
    expect(readAuthMark(authHome, agent.id)).toBeUndefined();
  });

  it("Hermes without a provider: session/new's auth_required is marked with initialize's hermes-setup (a terminal method)", async () => {
    const authHome = tempDir();
    const t = makeHost({ hermesHome: hermesHome(null), authHome });
    const err = (await t.host.newSession({ provider: 'hermes', workspace: t.workspace }).catch((e: unknown) => e)) as {
      code: string;
    };
    expect(err.code).toBe('auth_required');
    expect(readAuthMark(authHome, 'hermes')).toMatchObject({
      where: 'session/new',
      methods: [{ id: 'hermes-setup', kind: 'terminal' }],
    });
    expect(readAuthMark(authHome, 'hermes')!.message).toMatch(/hermes setup/);
  });
});
