/**
 * The env of what a hosted agent starts: the agent process gets its configured credentials, the
 * commands it runs through terminal/create get the allow-list plus the workspace's env only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { currentEnv } from '../../src/providers/locate.js';
import { makeHost, scriptAgent, shutdownHosts, texts } from './helpers.js';

afterEach(shutdownHosts);

describe('agent slot environments', () => {
  it("terminal/create commands never see the agent's credentials (or ours); they get the basics and the workspace env", async () => {
    const saved = process.env.GH_TOKEN;
    process.env.GH_TOKEN = 'ghp-ambient';
    try {
      const t = makeHost({
        providers: [scriptAgent('agent', 'host-agent.ts', { env: { AGENT_SECRET: 'sk-agent-only' } })],
        env: currentEnv({ env: { ...process.env } }),
        workspaceEnv: () => ({ WS_SETTING: 'ws-1' }),
        // Whatever the policy decides about terminal/create, these commands are allowed.
        permission: { mode: 'auto' },
      });
      const s = await t.host.newSession({ provider: 'agent', workspace: t.workspace });
      for (const p of ['env AGENT_SECRET', 'term AGENT_SECRET', 'term GH_TOKEN', 'term WS_SETTING', 'term PATH'])
        await s.prompt(p).result;
      const said = texts(s);
      // The agent itself has what the user configured for it …
      expect(said).toContain('env AGENT_SECRET=sk-agent-only');
      // … the scripts it runs do not.
      expect(said).toContain('term AGENT_SECRET=(unset)');
      expect(said).toContain('term GH_TOKEN=(unset)');
      expect(said).toContain('term WS_SETTING=ws-1');
      expect(said).toContain(`term PATH=${process.env.PATH}`);
    } finally {
      if (saved === undefined) delete process.env.GH_TOKEN;
      else process.env.GH_TOKEN = saved;
    }
  });
});
