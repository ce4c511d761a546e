/**
 * One auth-required shape, whoever sees it: the agent's -32000 becomes `auth_required` listing
 * the agent's auth methods (from the error, else from initialize) — for a bare client and through
 * the host alike.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AcpClient } from '../../src/session/client.js';
import { makeHost, scriptAgent, shutdownHosts, FAKE } from './helpers.js';
import { tempDir } from '../session/helpers.js';
import { nodeArgs } from '../prebuilt.js';

afterEach(shutdownHosts);

const METHODS = [{ id: 'agent-login', name: 'Log in to the agent' }];

describe('auth required', () => {
  it("through the host: a prompt failing -32000 is auth_required naming the agent and listing initialize's auth methods", async () => {
    const agent = scriptAgent('locked', 'host-agent.ts', { env: { HOST_AGENT_AUTH: '1' } });
    const t = makeHost({ providers: [agent] });
    const s = await t.host.newSession({ provider: agent.id, workspace: t.workspace });
    const r = await s.prompt('auth').result;
    expect(r.error).toMatchObject({ code: 'auth_required', data: { rpcCode: -32000, authMethods: METHODS } });
    expect(r.error!.message).toBe(
      `${agent.label} needs credentials: Authentication required; sign in with one of: agent-login`,
    );
  });

  it('a bare client: the same shape (no label: "the agent")', async () => {
    const client = await AcpClient.spawn({
      command: process.execPath,
      args: nodeArgs(FAKE('host-agent.ts')),
      cwd: tempDir(),
      env: { HOST_AGENT_AUTH: '1', HOST_AGENT_STATE: tempDir() },
    });
    try {
      const s = await client.newSession({ cwd: tempDir() });
      const r = await s.prompt('auth').result;
      expect(r.error).toEqual({
        code: 'auth_required',
        message: 'the agent needs credentials: Authentication required; sign in with one of: agent-login',
        data: { rpcCode: -32000, authMethods: METHODS },
      });
    } finally {
      await client.close();
    }
  });
});
