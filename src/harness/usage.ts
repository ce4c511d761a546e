/**
 * Tokens and cost per stored session, and totals by agent, workspace or day. Hermes sessions
 * take both from Hermes' own state.db (read-only; its row matched by the agent session id);
 * every other agent (and a Hermes session whose row cannot be read) takes tokens from the turns
 * Talaria stored (ACP prompt-response usage) and cost only from what the agent sent in
 * `usage_update` — an unknown price stays unknown ("no price"), never $0.
 */
import {
  addCosts,
  readHermesUsage,
  type Cost,
  type CostTotal,
  type HermesUsageRead,
} from '../providers/hermes/state-db.js';
import { hermesRoot, profileHome } from '../providers/hermes/home.js';
import type { ProviderEnv } from '../providers/types.js';
import type { Store } from '../store/index.js';
import type { StoredSession } from '../store/sessions.js';

export interface UsageTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  total: number;
}

export interface SessionUsage {
  /** Talaria's id. */
  sessionId: string;
  agentSessionId?: string;
  provider: string;
  profile?: string;
  workspaceId?: string;
  workspace?: string;
  title?: string;
  createdAt: number;
  /** The UTC day the session started (YYYY-MM-DD): a Hermes row carries session totals only. */
  day: string;
  tokens: UsageTokens;
  cost: Cost;
  /** Where the figures come from: Hermes' state.db, or the turns and usage updates Talaria stored. */
  from: 'hermes-state-db' | 'talaria';
  /** Hermes' own cost_status / cost_source, when read from state.db. */
  hermes?: {
    costStatus: string | null;
    costSource: string | null;
    model: string | null;
    apiCalls: number;
    /** Compression continuations and subagents whose rows were added in (Hermes keeps them apart). */
    lineage?: { continuations: number; subagents: number; unpricedParts: number };
  };
}

export interface UsageGroup {
  key: string;
  sessions: number;
  tokens: UsageTokens;
  cost: CostTotal;
}

export interface UsageReport {
  sessions: SessionUsage[];
  /** Why some Hermes figures came from Talaria instead (unknown shape, busy, missing file…), one per state.db. */
  problems: string[];
}

export type UsageBy = 'agent' | 'workspace' | 'day';

const zero = (): UsageTokens => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 0 });

const n = (v: number | undefined): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** ACP usage counters (inputTokens, outputTokens, cachedReadTokens, …) summed over the stored turns. */
export function tokensFromTurns(c: Record<string, number>): UsageTokens {
  const t: UsageTokens = {
    input: n(c.inputTokens),
    output: n(c.outputTokens),
    cacheRead: n(c.cachedReadTokens),
    cacheWrite: n(c.cachedWriteTokens),
    reasoning: n(c.thoughtTokens),
    total: 0,
  };
  t.total = n(c.totalTokens) || t.input + t.output + t.reasoning;
  return t;
}

/** The agent's own cost from its last `usage_update` (ACP: cumulative for the session), USD only. */
export function costFromContext(context: unknown): Cost {
  const c = (context as { cost?: { amount?: unknown; currency?: unknown } } | undefined)?.cost;
  if (
    c &&
    typeof c.amount === 'number' &&
    Number.isFinite(c.amount) &&
    typeof c.currency === 'string' &&
    c.currency.toUpperCase() === 'USD'
  ) {
    return { usd: c.amount, status: 'known' };
  }
  return { status: 'unknown' };
}

/** What the session's agent said it is in `initialize` (stored with the row), and how an ad-hoc command started it. */
function agentOf(s: StoredSession): { name?: string; args: string[] } {
  const info = s.agentInfo as { agentInfo?: { name?: unknown }; launch?: { args?: unknown } } | undefined;
  const name = info?.agentInfo?.name;
  const args = Array.isArray(info?.launch?.args)
    ? info.launch.args.filter((a): a is string => typeof a === 'string')
    : [];
  return { ...(typeof name === 'string' ? { name } : {}), args };
}

/** Hermes by what the agent says it is, however it was launched (by id, by a plain command, from a config). */
const isHermes = (s: StoredSession): boolean =>
  s.provider === 'hermes' || /^hermes-agent$/i.test(agentOf(s).name ?? '');

/** The profile: the session's own, else `-p NAME` / `--profile NAME` on an ad-hoc `hermes` command line. */
function profileOf(s: StoredSession): string | undefined {
  if (s.profile) return s.profile;
  const args = agentOf(s).args;
  const i = args.findIndex((a) => a === '-p' || a === '--profile');
  return i >= 0 ? args[i + 1] : args.find((a) => a.startsWith('--profile='))?.slice('--profile='.length);
}

/** Usage of the given stored sessions. Reads each Hermes home's state.db once, closed right after. */
export function sessionUsage(
  store: Store,
  env: Pick<ProviderEnv, 'env' | 'homeDir'>,
  rows: readonly StoredSession[],
): UsageReport {
  // Any host's workspace (get reads every row; list is this host's): a fleet's usage names them all.
  const paths = new Map<string, string | undefined>();
  const pathOf = (id: string): string | undefined => {
    if (!paths.has(id)) paths.set(id, store.workspaces.get(id)?.path);
    return paths.get(id);
  };
  const byHome = new Map<string, string[]>();
  const root = hermesRoot(env);
  const homeOf = (s: StoredSession) => profileHome(root, profileOf(s));
  for (const s of rows) {
    if (!isHermes(s) || !s.agentSessionId) continue;
    const ids = byHome.get(homeOf(s)) ?? [];
    ids.push(s.agentSessionId);
    byHome.set(homeOf(s), ids);
  }
  const reads = new Map<string, HermesUsageRead>();
  const problems: string[] = [];
  for (const [home, ids] of byHome) {
    const r = readHermesUsage(home, ids);
    reads.set(home, r);
    if (r.kind !== 'ok') problems.push(r.message);
  }
  const sessions = rows.map((s): SessionUsage => {
    const base = {
      sessionId: s.id,
      ...(s.agentSessionId !== undefined ? { agentSessionId: s.agentSessionId } : {}),
      provider: s.provider,
      ...(s.profile !== undefined ? { profile: s.profile } : {}),
      ...(s.workspaceId !== undefined ? { workspaceId: s.workspaceId } : {}),
      ...(s.workspaceId !== undefined && pathOf(s.workspaceId) !== undefined
        ? { workspace: pathOf(s.workspaceId)! }
        : {}),
      ...(s.title !== undefined ? { title: s.title } : {}),
      createdAt: s.createdAt,
      day: new Date(s.createdAt).toISOString().slice(0, 10),
    };
    const r = isHermes(s) && s.agentSessionId ? reads.get(homeOf(s)) : undefined;
    const row = r?.kind === 'ok' ? r.sessions.get(s.agentSessionId!) : undefined;
    if (row) {
      const tokens: UsageTokens = {
        input: row.inputTokens,
        output: row.outputTokens,
        cacheRead: row.cacheReadTokens,
        cacheWrite: row.cacheWriteTokens,
        reasoning: row.reasoningTokens,
        total: row.inputTokens + row.outputTokens + row.reasoningTokens,
      };
      return {
        ...base,
        tokens,
        cost: row.cost,
        from: 'hermes-state-db',
        hermes: {
          costStatus: row.costStatus,
          costSource: row.costSource,
          model: row.model,
          apiCalls: row.apiCalls,
          ...(row.lineage ? { lineage: row.lineage } : {}),
        },
      };
    }
    const context = store.entries.getMeta(s.id)?.context;
    return {
      ...base,
      tokens: tokensFromTurns(store.turns.usage(s.id).session),
      cost: costFromContext(context),
      from: 'talaria',
    };
  });
  return { sessions, problems };
}

/** Totals by agent (provider, and profile when there is one), workspace path or UTC day; sorted by key. */
export function groupUsage(list: readonly SessionUsage[], by: UsageBy): UsageGroup[] {
  const groups = new Map<string, { sessions: SessionUsage[] }>();
  for (const s of list) {
    const key =
      by === 'agent'
        ? s.profile && s.profile !== 'default'
          ? `${s.provider} (${s.profile})`
          : s.provider
        : by === 'workspace'
          ? (s.workspace ?? s.workspaceId ?? '(none)')
          : s.day;
    const g = groups.get(key) ?? { sessions: [] };
    g.sessions.push(s);
    groups.set(key, g);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, g]) => {
      const tokens = zero();
      for (const s of g.sessions)
        for (const k of Object.keys(tokens) as Array<keyof UsageTokens>) tokens[k] += s.tokens[k];
      return { key, sessions: g.sessions.length, tokens, cost: addCosts(g.sessions.map((s) => s.cost)) };
    });
}
