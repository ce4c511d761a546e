import type { ProviderInfo } from '../api/server.js';

/**
 * The order the server's best-ready pick checks agents in (src/harness/choose.ts PREFERRED_AGENTS),
 * then the user's own agents from config.json; the demo agent when none of them is ready.
 */
const PREFERRED = ['hermes', 'claude-code', 'codex', 'gemini', 'opencode', 'kimi', 'qwen', 'copilot', 'kilo', 'pi', 'cursor'];
const FALLBACK = 'demo';

export interface DefaultAgent {
  /** The agent a new session here gets; undefined while readiness is not known (the server picks). */
  id: string | undefined;
  label: string;
  /** Why it is that one, in a sentence a person reads on the Agents page. */
  why: string;
  /** "workspace" or "config" when a configured choice is in force; "best-ready" otherwise. */
  from: 'workspace' | 'config' | 'best-ready';
}

/**
 * The default agent of a workspace, the one rule the Agents page and "+ New" both show: the one
 * configured (the workspace's choice, else config.json's `defaultProvider`) when it is ready,
 * else the best ready agent.
 */
export function defaultAgent(providers: readonly ProviderInfo[], bound: string | undefined, configured: string | undefined): DefaultAgent {
  const byId = new Map(providers.map((p) => [p.id, p]));
  const label = (id: string): string => byId.get(id)?.label ?? id;
  const want = bound ?? configured;
  const where = bound ? 'chosen for this workspace' : 'the default in config.json';
  if (want) {
    const p = byId.get(want);
    // Not checked yet counts as ready until the check says otherwise (the server starts it then).
    if (p && p.ready !== false) return { id: want, label: p.label, why: `${p.label} is ${where}.`, from: bound ? 'workspace' : 'config' };
  }
  const order = [...PREFERRED, ...providers.filter((p) => p.source === 'config').map((p) => p.id)];
  const before = want ? (byId.has(want) ? `${label(want)} is ${where} but is not ready` : `"${want}" is ${where} but no such agent is known`) : 'No default agent is chosen';
  const best = order.map((id) => byId.get(id)).find((p) => p?.ready === true);
  if (best) return { id: best.id, label: best.label, why: `${before}, so new sessions use the best ready agent: ${best.label}.`, from: 'best-ready' };
  // Readiness not known yet for an agent that would come first: the server's own pick decides.
  if (order.some((id) => byId.get(id)?.ready === undefined && byId.has(id)))
    return { id: undefined, label: 'the best ready agent', why: `${before}, so new sessions use the best ready agent (checking which…).`, from: 'best-ready' };
  const demo = byId.get(FALLBACK);
  if (demo) return { id: demo.id, label: demo.label, why: `${before}, and no other agent is ready, so new sessions use the best ready agent: ${demo.label} (offline, no keys).`, from: 'best-ready' };
  return { id: providers[0]?.id, label: providers[0]?.label ?? 'no agent', why: `${before}, and no agent is ready.`, from: 'best-ready' };
}
