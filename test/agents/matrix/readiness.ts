/**
 * The deep readiness check (providers/probe.ts, what `doctor` builds on) against the real agent
 * with no credentials at all: it must reach initialize, name the agent and its quirk set, and
 * report missing credentials as a clean `auth` gap (no stack trace), or — for agents that only
 * fail at the first prompt or hang — open a session. Was test/providers/other-agents.test.ts,
 * which installed agents from npm during plain `npm test`.
 */
import { customProvider } from '../../../src/providers/custom.js';
import { currentEnv } from '../../../src/providers/locate.js';
import { probeProvider } from '../../../src/providers/probe.js';
import { createRegistry } from '../../../src/providers/registry.js';
import type { AgentProfile } from '../profiles/types.js';
import { setupRow, viaProxy, type By } from './row.js';
import type { Check } from './scenarios.js';
import type { Workspace } from './workspace.js';

const STACK = /\n\s+at |Traceback|node:internal/;

export async function readinessScenario(
  profile: AgentProfile,
  o: { ws: Workspace; installDir: string; modelUrl: string; by: By },
): Promise<Check> {
  const row = await setupRow(profile, { ...o, credentials: false, label: 'readiness', inProcess: true });
  const provider =
    o.by === 'id' && !viaProxy()
      ? createRegistry().require(profile.builtin)
      : customProvider({ name: `${profile.name}-cmd`, command: row.launch.command, args: row.launch.args });
  const wsEnv = { ...row.env, ...row.launch.env };
  const r = await probeProvider(provider, currentEnv({ env: row.env, homeDir: row.home }), {
    env: wsEnv,
    timeoutMs: profile.initTimeoutMs ?? 60_000,
  });
  const facts = `${r.agentInfo?.name ?? 'no agentInfo'} ${r.version ?? ''}; quirks ${r.quirks?.set ?? '-'}; gaps: ${r.gaps.map((g) => g.code).join(', ') || 'none'}`;
  if (!r.initialized)
    return {
      ok: false,
      detail: `not initialized: ${r.gaps
        .map((g) => g.message)
        .join('; ')
        .slice(0, 300)}`,
    };
  const stack = r.gaps.find((g) => STACK.test(`${g.message} ${g.fix}`));
  if (stack) return { ok: false, detail: `a gap shows a stack trace: ${stack.message.slice(0, 200)}` };
  if (!r.agentInfo?.name || !r.quirks) return { ok: false, detail: `the agent was not identified (${facts})` };
  const onlyAuth = r.gaps.length > 0 && r.gaps.every((g) => g.code === 'auth');
  // Agents that open a session without credentials (they fail at the prompt, or hang) are "ready" here.
  const opensAnyway =
    profile.noCredentials !== 'session_new' && r.sessionOpened === true && r.gaps.every((g) => g.code === 'auth');
  return { ok: onlyAuth || opensAnyway, detail: facts };
}
