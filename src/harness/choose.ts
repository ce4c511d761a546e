/**
 * Which agent a workspace gets, and how ready every agent is.
 *
 * The pick, first match wins:
 *   1. an explicit provider (`--agent`);
 *   2. the workspace's binding in config.json (`workspaces[path].provider`, nearest ancestor);
 *   3. config.json's `defaultProvider`;
 *   4. the best READY agent: Hermes, then Claude Code, Codex, Gemini CLI, opencode, Kimi, then the
 *      user's own agents from config.json (checked in that order, stopping at the first ready one);
 *   5. the bundled demo agent.
 * The profile: the explicit one, else the workspace binding's (when it names no other provider).
 */
import { resolveProvider, type TalariaConfig } from '../providers/config.js';
import { choiceBeforeInit, choiceForAgent, launchFacts, summarize } from '../providers/quirks/index.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { ProviderEnv, Readiness } from '../providers/types.js';
import type { AgentPick, AgentStatus } from './types.js';

export const PREFERRED_AGENTS = [
  'hermes',
  'claude-code',
  'codex',
  'gemini',
  'opencode',
  'kimi',
  'qwen',
  'copilot',
  'kilo',
  'pi',
  'cursor',
] as const;
export const FALLBACK_AGENT = 'demo';

interface ChooseCtx {
  registry: ProviderRegistry;
  config: TalariaConfig;
  env: ProviderEnv;
  /** What an earlier process of an agent said it is (the store): its quirk set before it runs. */
  identity?: (provider: string) => { name: string; version?: string } | undefined;
}

export interface PickOptions {
  workspace: string;
  provider?: string;
  profile?: string;
  timeoutMs?: number;
  known?: readonly Readiness[];
  /**
   * Agents already shown to work (a live process that opened a session): picked without a check.
   * A check spawns the agent's binary (Hermes: `hermes --version` and `acp --check`, seconds of
   * Python), which every new session without `--agent` paid before it could take a warm spare.
   */
  proven?: (provider: string, profile: string | undefined) => boolean;
}

export async function pickAgent(c: ChooseCtx, o: PickOptions): Promise<AgentPick> {
  const choice = resolveProvider(c.config, {
    workspace: o.workspace,
    override: { ...(o.provider ? { provider: o.provider } : {}), ...(o.profile ? { profile: o.profile } : {}) },
  });
  const profile = (id: string) => (c.registry.get(id)?.profiles && choice.profile ? { profile: choice.profile } : {});
  if (choice.from === 'session')
    return { provider: choice.provider, ...profile(choice.provider), from: 'flag', checked: [] };
  if (choice.from === 'workspace' || choice.from === 'default')
    return { provider: choice.provider, ...profile(choice.provider), from: choice.from, checked: [] };
  const order = [
    ...PREFERRED_AGENTS,
    ...c.registry
      .list()
      .filter((p) => p.source === 'config')
      .map((p) => p.id),
  ];
  const checked: Readiness[] = [];
  for (const id of new Set(order)) {
    const p = c.registry.get(id);
    if (!p) continue;
    if (o.proven?.(id, profile(id).profile)) return { provider: id, ...profile(id), from: 'best-ready', checked };
    // A check already made (doctor checks every agent at once) is not made again.
    const r =
      o.known?.find((k) => k.providerId === id) ??
      (await p.readiness(c.env, { ...profile(id), ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}) }));
    checked.push(r);
    if (r.ready) return { provider: id, ...profile(id), from: 'best-ready', checked };
  }
  return { provider: FALLBACK_AGENT, from: 'fallback', checked };
}

/**
 * The agent an opened workspace will most likely use, found cheaply for the warm pool: the
 * configured one (flag-free pick rules 2–3), else the first preferred agent if it is ready — the
 * one best-ready would pick — without scanning the others (undefined: nothing to warm).
 */
export async function likelyAgent(
  c: ChooseCtx,
  workspace: string,
): Promise<{ provider: string; profile?: string } | undefined> {
  const choice = resolveProvider(c.config, { workspace, override: {} });
  const profile = (id: string) => (c.registry.get(id)?.profiles && choice.profile ? { profile: choice.profile } : {});
  if (choice.from === 'workspace' || choice.from === 'default')
    return { provider: choice.provider, ...profile(choice.provider) };
  const first = c.registry.get(PREFERRED_AGENTS[0]);
  if (!first) return undefined;
  const r = await first.readiness(c.env, profile(first.id));
  return r.ready ? { provider: first.id, ...profile(first.id) } : undefined;
}

export async function agentStatuses(
  c: ChooseCtx,
  o: { profile?: string; timeoutMs?: number } = {},
): Promise<AgentStatus[]> {
  return Promise.all(
    c.registry.list().map(async (p) => {
      const opts = {
        ...(p.profiles && o.profile ? { profile: o.profile } : {}),
        ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
      };
      try {
        const r = await p.readiness(c.env, opts);
        const said = c.identity?.(p.id);
        const facts = launchFacts(p, {
          ...(r.version ? { version: r.version } : {}),
          ...(r.command ? { command: r.command.command, args: r.command.args } : {}),
          ...(said ? { learned: choiceForAgent(said, 'an earlier process of this agent named itself') } : {}),
        });
        return { ...r, source: p.source, quirks: summarize(choiceBeforeInit(facts)) };
      } catch (e) {
        // A provider's check should never throw; if one does, it is reported like any other gap.
        const message = `Checking ${p.label} failed: ${(e as Error).message}`;
        return {
          providerId: p.id,
          label: p.label,
          found: false,
          ready: false,
          gaps: [{ code: 'spawn_failed' as const, message, fix: p.install }],
          warnings: [],
          source: p.source,
        };
      }
    }),
  );
}
