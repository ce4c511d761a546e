/**
 * Hermes' own `state.db` ($HERMES_HOME/state.db, one per profile), read for token counts and
 * cost. Hermes owns the file: it is opened read-only (state-db-open.ts), never written, and
 * closed before the call returns, so Hermes' WAL writers are never held up. Its shape is private to Hermes, so it is checked first: the columns this reader needs must exist
 * under these names, otherwise the answer is `unknown-shape` with what is missing — never a
 * guess. Checked against Hermes 0.18.2 (schema_version 21, hermes_state.py SCHEMA_SQL; the DDL
 * is in test/fixtures/hermes/state-db-0.18.2.sql).
 */
import type Database from 'better-sqlite3';
import { addCosts, type Cost } from '../../session/cost.js';
import { openHermesStateDb, stateDbFailure } from './state-db-open.js';

// The cost model is shared with other agents' usage_update and the web (a leaf module).
export { addCosts, formatCost, formatCostTotal, type Cost, type CostTotal } from '../../session/cost.js';

/** One `sessions` row's usage, keyed by Hermes' session id (the ACP session id). */
export interface HermesSessionUsage {
  sessionId: string;
  source: string;
  model: string | null;
  /** Epoch milliseconds. */
  startedAt: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  apiCalls: number;
  cost: Cost;
  /** Hermes' own words: cost_status ('actual' | 'estimated' | 'included' | 'unknown') and cost_source. */
  costStatus: string | null;
  costSource: string | null;
  /**
   * Rows of the same conversation Hermes keeps apart, added into the figures above: compression
   * continuations (a new row per compression when `compression.in_place` is off) and subagents
   * (`delegate_task` children, source 'subagent'). `unpricedParts` of them had no price.
   */
  lineage?: { continuations: number; subagents: number; unpricedParts: number };
}

export type HermesUsageRead =
  | { kind: 'ok'; file: string; schemaVersion: number | null; sessions: Map<string, HermesSessionUsage> }
  | { kind: 'missing'; file: string; message: string }
  | { kind: 'unknown-shape'; file: string; message: string }
  | { kind: 'busy'; file: string; message: string }
  | { kind: 'error'; file: string; message: string };

export { HERMES_STATE_SCHEMA, hermesStateDbPath } from './state-db-open.js';

/** The `sessions` columns read; all must exist. */
export const HERMES_USAGE_COLUMNS = [
  'id',
  'source',
  'model',
  'started_at',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'api_call_count',
  'estimated_cost_usd',
  'actual_cost_usd',
  'cost_status',
  'cost_source',
] as const;

interface Row {
  id: string;
  source: string;
  model: string | null;
  started_at: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  api_call_count: number | null;
  estimated_cost_usd: number | null;
  actual_cost_usd: number | null;
  cost_status: string | null;
  cost_source: string | null;
}

function toUsage(r: Row): HermesSessionUsage {
  return {
    sessionId: r.id,
    source: String(r.source),
    model: typeof r.model === 'string' ? r.model : null,
    startedAt: Math.round((num(r.started_at) ?? 0) * 1000),
    inputTokens: num(r.input_tokens) ?? 0,
    outputTokens: num(r.output_tokens) ?? 0,
    cacheReadTokens: num(r.cache_read_tokens) ?? 0,
    cacheWriteTokens: num(r.cache_write_tokens) ?? 0,
    reasoningTokens: num(r.reasoning_tokens) ?? 0,
    apiCalls: num(r.api_call_count) ?? 0,
    cost: hermesCost(r),
    costStatus: typeof r.cost_status === 'string' ? r.cost_status : null,
    costSource: typeof r.cost_source === 'string' ? r.cost_source : null,
  };
}

/** Columns that link a row to its conversation (hermes_state.py; acp_adapter/provenance.py reads the same). */
const LINEAGE_COLUMNS = ['parent_session_id', 'end_reason'] as const;

/**
 * Adds each asked-for session's continuations and subagents into its figures. A child belongs to
 * its parent's conversation when it is a subagent, or when the parent ended by compression (what
 * Hermes itself calls a continuation); branches and forks are conversations of their own. A child
 * that is itself one of the asked-for sessions keeps its own figures (never counted twice).
 */
function addLineage(db: Database.Database, select: string, sessions: Map<string, HermesSessionUsage>): void {
  const roots = [...sessions.keys()];
  if (roots.length === 0) return;
  const cols = select.replace(/^SELECT /, '').replace(/ FROM sessions$/, '');
  const withParent = cols
    .split(', ')
    .map((c) => `s.${c}`)
    .join(', ');
  const stmt = db.prepare(
    `WITH RECURSIVE tree(id, root) AS (
       SELECT s.id, p.id FROM sessions s JOIN sessions p ON s.parent_session_id = p.id
        WHERE p.id IN (SELECT value FROM json_each(@ids)) AND (s.source = 'subagent' OR p.end_reason = 'compression')
       UNION
       SELECT s.id, t.root FROM tree t JOIN sessions p ON p.id = t.id JOIN sessions s ON s.parent_session_id = p.id
        WHERE (s.source = 'subagent' OR p.end_reason = 'compression') AND t.id NOT IN (SELECT value FROM json_each(@ids))
     )
     SELECT t.root AS root, ${withParent} FROM tree t JOIN sessions s ON s.id = t.id`,
  );
  const parts = new Map<string, Cost[]>();
  for (const r of stmt.all({ ids: JSON.stringify(roots) }) as Array<Row & { root: string }>) {
    const own = sessions.get(r.root);
    if (!own || sessions.has(r.id)) continue;
    const part = toUsage(r);
    own.inputTokens += part.inputTokens;
    own.outputTokens += part.outputTokens;
    own.cacheReadTokens += part.cacheReadTokens;
    own.cacheWriteTokens += part.cacheWriteTokens;
    own.reasoningTokens += part.reasoningTokens;
    own.apiCalls += part.apiCalls;
    const l = (own.lineage ??= { continuations: 0, subagents: 0, unpricedParts: 0 });
    if (part.source === 'subagent') l.subagents++;
    else l.continuations++;
    const costs = parts.get(r.root) ?? [own.cost];
    costs.push(part.cost);
    parts.set(r.root, costs);
  }
  for (const [root, costs] of parts) {
    const own = sessions.get(root)!;
    const t = addCosts(costs);
    own.cost = t.status === 'unknown' ? { status: 'unknown' } : { usd: t.usd!, status: t.status };
    own.lineage!.unpricedParts = t.unpriced;
  }
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * Hermes' cost columns as a Cost. `actual` with an actual_cost_usd is known; `included`
 * (subscription route) is known at 0; `estimated` carries estimated_cost_usd; anything else —
 * `unknown`, no status, a status this reader does not know — has no price, whatever
 * estimated_cost_usd says (Hermes stores COALESCE(NULL, 0) = 0.0 there).
 */
export function hermesCost(r: {
  cost_status: string | null;
  estimated_cost_usd: number | null;
  actual_cost_usd: number | null;
}): Cost {
  const est = num(r.estimated_cost_usd);
  const act = num(r.actual_cost_usd);
  switch (r.cost_status) {
    case 'actual':
      if (act !== undefined) return { usd: act, status: 'known' };
      return est !== undefined ? { usd: est, status: 'estimated' } : { status: 'unknown' };
    case 'included':
      return { usd: 0, status: 'known' };
    case 'estimated':
      return est !== undefined ? { usd: est, status: 'estimated' } : { status: 'unknown' };
    default:
      return { status: 'unknown' };
  }
}

const ID_CHUNK = 500;

/**
 * Reads the usage of the given Hermes session ids (all `sessions` rows when `ids` is absent)
 * from a Hermes home's state.db. Never throws: a missing file, an unknown shape, a busy or
 * locked database and any other SQLite error come back as results that say so.
 */
export function readHermesUsage(
  home: string,
  ids?: readonly string[],
  opts: { timeoutMs?: number } = {},
): HermesUsageRead {
  const open = openHermesStateDb(home, {
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    needs: { sessions: HERMES_USAGE_COLUMNS },
    what: 'no usage',
  });
  if (open.kind !== 'ok') return open;
  const { db, file } = open;
  try {
    const select = `SELECT ${HERMES_USAGE_COLUMNS.join(', ')} FROM sessions`;
    const rows: Row[] = [];
    if (ids === undefined) rows.push(...(db.prepare(select).all() as Row[]));
    else {
      for (let i = 0; i < ids.length; i += ID_CHUNK) {
        const chunk = ids.slice(i, i + ID_CHUNK);
        if (chunk.length === 0) continue;
        rows.push(...(db.prepare(`${select} WHERE id IN (${chunk.map(() => '?').join(', ')})`).all(...chunk) as Row[]));
      }
    }
    const sessions = new Map<string, HermesSessionUsage>();
    for (const r of rows) if (typeof r.id === 'string') sessions.set(r.id, toUsage(r));
    // Lineage only for the sessions asked for (a listing of every row keeps rows apart), and only with the columns that say it.
    const cols = open.columns('sessions');
    if (ids !== undefined && LINEAGE_COLUMNS.every((c) => cols.has(c))) addLineage(db, select, sessions);
    return { kind: 'ok', file, schemaVersion: open.version, sessions };
  } catch (e) {
    return stateDbFailure(file, e, 'usage not read this time');
  } finally {
    db.close();
  }
}
