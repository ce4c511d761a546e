/**
 * Hermes sessions from its other channels — the CLI, the TUI, cron, the messaging gateway
 * (telegram, discord, …) — read from its state.db. Hermes' ACP `session/list` shows only
 * `source = 'acp'` rows (acp_adapter/session.py:280 `list_sessions_rich(source="acp")`), so these
 * are invisible over the wire. Read-only (state-db-open.ts) and only from the exact schema this
 * was checked against (schema_version 21, Hermes 0.18.2): message rows are Hermes' private
 * format, so any other version is "unknown shape", never a guess.
 *
 * Which rows, as Hermes' own pickers choose them (hermes_state.py:3343 `list_sessions_rich`):
 * not archived, not a compression continuation (shown as part of its root's conversation), not a
 * delegate child (`model_config._delegate_from`); and not `acp` (Talaria's own, listed by ACP)
 * nor `subagent` (delegate children, counted into their parent's usage).
 */
import type Database from 'better-sqlite3';
import { readHermesUsage, type HermesSessionUsage } from './state-db.js';
import { HERMES_STATE_SCHEMA, openHermesStateDb, stateDbFailure, type StateDbProblem } from './state-db-open.js';
import { decodeContent, parseToolCalls, type ChannelMessage } from './channel-transcript.js';

/** Sources that are not "other channels": ACP (session/list has them) and delegate children. */
export const HIDDEN_SOURCES = ['acp', 'subagent'] as const;

export const CHANNEL_SESSION_COLUMNS = [
  'id',
  'source',
  'model',
  'model_config',
  'title',
  'parent_session_id',
  'started_at',
  'ended_at',
  'end_reason',
  'message_count',
  'tool_call_count',
  'cwd',
  'archived',
] as const;

export const CHANNEL_MESSAGE_COLUMNS = [
  'id',
  'session_id',
  'role',
  'content',
  'tool_call_id',
  'tool_calls',
  'tool_name',
  'timestamp',
  'finish_reason',
  'reasoning',
  'active',
] as const;

export interface ChannelSession {
  id: string;
  source: string;
  /** Hermes' title (NULL for a one-shot CLI run: the title is an aux call the process exits before). */
  title: string | null;
  /** The first user message, cut to 80 characters (what Hermes' pickers show without a title). */
  preview: string | null;
  model: string | null;
  cwd: string | null;
  /** Epoch ms. */
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
  /** The last message's time (or the start), epoch ms: the list is newest first by it. */
  lastActive: number;
  /** Hermes' own counters, summed over the compression continuations. */
  messageCount: number;
  toolCallCount: number;
  /** Compression continuations, oldest first: the conversation goes on in the last one. */
  continuations: string[];
  /** Tokens and cost as for Talaria's own Hermes sessions (state-db.ts; continuations and subagents added in). */
  usage?: HermesSessionUsage;
}

export type ChannelList =
  { kind: 'ok'; file: string; schemaVersion: number; sessions: ChannelSession[] } | StateDbProblem;

export type ChannelShow =
  | { kind: 'ok'; file: string; schemaVersion: number; session: ChannelSession; messages: ChannelMessage[] }
  | { kind: 'not-found'; file: string; message: string }
  | StateDbProblem;

interface SessionRow {
  id: string;
  source: string;
  model: string | null;
  model_config: string | null;
  title: string | null;
  parent_session_id: string | null;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  message_count: number | null;
  tool_call_count: number | null;
  cwd: string | null;
  archived: number;
  last_active: number | null;
  preview: unknown;
}

const NEEDS = { sessions: CHANNEL_SESSION_COLUMNS, messages: CHANNEL_MESSAGE_COLUMNS };
const ms = (s: unknown): number => (typeof s === 'number' && Number.isFinite(s) ? Math.round(s * 1000) : 0);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function open(home: string, what: string) {
  return openHermesStateDb(home, { needs: NEEDS, exactVersion: HERMES_STATE_SCHEMA, what });
}

const SELECT = `SELECT ${CHANNEL_SESSION_COLUMNS.map((c) => `s.${c}`).join(', ')},
  COALESCE((SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id AND m.active = 1), s.started_at) AS last_active,
  (SELECT m.content FROM messages m WHERE m.session_id = s.id AND m.role = 'user' AND m.active = 1 ORDER BY m.id LIMIT 1) AS preview
  FROM sessions s`;

/** A compression continuation: its parent ended by compression (hermes_state.py:71 _COMPRESSION_CHILD_SQL). */
const NOT_CONTINUATION = `NOT EXISTS (SELECT 1 FROM sessions p WHERE p.id = s.parent_session_id AND p.end_reason = 'compression')`;
const NOT_DELEGATE = `json_extract(COALESCE(s.model_config, '{}'), '$._delegate_from') IS NULL`;

/**
 * The continuation chain after `id`, as `get_compression_tip` walks it (hermes_state.py:3233):
 * children of a compression-ended parent that are not branches, delegates or tool rows; the
 * newest such child at each step.
 */
function chainAfter(db: Database.Database, id: string): SessionRow[] {
  const step = db.prepare(
    `${SELECT} JOIN sessions parent ON parent.id = s.parent_session_id
      WHERE parent.id = ? AND parent.end_reason = 'compression'
        AND json_extract(COALESCE(s.model_config, '{}'), '$._branched_from') IS NULL
        AND ${NOT_DELEGATE} AND COALESCE(s.source, '') != 'tool'
      ORDER BY s.started_at DESC LIMIT 1`,
  );
  const out: SessionRow[] = [];
  const seen = new Set([id]);
  let cur = id;
  for (let i = 0; i < 100; i++) {
    const next = step.get(cur) as SessionRow | undefined;
    if (!next || seen.has(next.id)) break;
    out.push(next);
    seen.add(next.id);
    cur = next.id;
  }
  return out;
}

function toSession(r: SessionRow, chain: SessionRow[]): ChannelSession {
  const all = [r, ...chain];
  const preview = decodeContent(r.preview).text.replace(/\s+/g, ' ').trim();
  return {
    id: r.id,
    source: String(r.source),
    title: str(chain.at(-1)?.title) ?? str(r.title),
    preview: preview ? (preview.length > 80 ? `${preview.slice(0, 79)}…` : preview) : null,
    model: str(chain.at(-1)?.model) ?? str(r.model),
    cwd: str(r.cwd),
    startedAt: ms(r.started_at),
    endedAt:
      chain.length > 0
        ? chain.at(-1)!.ended_at === null
          ? null
          : ms(chain.at(-1)!.ended_at)
        : r.ended_at === null
          ? null
          : ms(r.ended_at),
    endReason: str((chain.at(-1) ?? r).end_reason),
    lastActive: Math.max(...all.map((x) => ms(x.last_active))),
    messageCount: all.reduce((n, x) => n + (x.message_count ?? 0), 0),
    toolCallCount: all.reduce((n, x) => n + (x.tool_call_count ?? 0), 0),
    continuations: chain.map((x) => x.id),
  };
}

function withUsage(home: string, sessions: ChannelSession[]): void {
  if (sessions.length === 0) return;
  const u = readHermesUsage(
    home,
    sessions.map((s) => s.id),
  );
  if (u.kind !== 'ok') return;
  for (const s of sessions) {
    const usage = u.sessions.get(s.id);
    if (usage) s.usage = usage;
  }
}

/** This home's sessions from other channels, newest first. A missing state.db is an empty list. */
export function listChannelSessions(home: string, o: { source?: string; limit?: number } = {}): ChannelList {
  const d = open(home, 'no session');
  if (d.kind === 'missing') return { kind: 'ok', file: d.file, schemaVersion: HERMES_STATE_SCHEMA, sessions: [] };
  if (d.kind !== 'ok') return d;
  let sessions: ChannelSession[];
  try {
    const hidden = HIDDEN_SOURCES.map((x) => `'${x}'`).join(', ');
    const rows = d.db
      .prepare(
        `${SELECT} WHERE s.source NOT IN (${hidden}) AND s.archived = 0 AND ${NOT_CONTINUATION} AND ${NOT_DELEGATE}
           ${o.source ? 'AND s.source = @source' : ''}
         ORDER BY last_active DESC LIMIT @limit`,
      )
      .all({ limit: o.limit ?? 500, ...(o.source ? { source: o.source } : {}) }) as SessionRow[];
    sessions = rows.map((r) => toSession(r, chainAfter(d.db, r.id)));
    sessions.sort((a, b) => b.lastActive - a.lastActive);
  } catch (e) {
    return stateDbFailure(d.file, e, 'its sessions are not read this time');
  } finally {
    d.db.close();
  }
  withUsage(home, sessions);
  return { kind: 'ok', file: d.file, schemaVersion: HERMES_STATE_SCHEMA, sessions };
}

/**
 * One session from another channel and its messages: only `active` rows (a rewind or an in-place
 * compaction leaves the old ones `active = 0`), in insertion order (`ORDER BY id`, as
 * hermes_state.py:4118 get_messages does), the root's and then each continuation's.
 */
export function readChannelSession(home: string, id: string): ChannelShow {
  const d = open(home, 'no message');
  if (d.kind === 'missing') return { kind: 'not-found', file: d.file, message: `no Hermes state.db at ${d.file}` };
  if (d.kind !== 'ok') return d;
  let session: ChannelSession;
  const messages: ChannelMessage[] = [];
  try {
    const hidden = HIDDEN_SOURCES.map((x) => `'${x}'`).join(', ');
    const row = d.db.prepare(`${SELECT} WHERE s.id = ? AND s.source NOT IN (${hidden})`).get(id) as
      SessionRow | undefined;
    if (!row) return { kind: 'not-found', file: d.file, message: `no Hermes session ${id} from another channel` };
    const chain = chainAfter(d.db, row.id);
    session = toSession(row, chain);
    const q = d.db.prepare(
      `SELECT ${CHANNEL_MESSAGE_COLUMNS.join(', ')} FROM messages WHERE session_id = ? AND active = 1 ORDER BY id`,
    );
    for (const sid of [row.id, ...session.continuations])
      for (const m of q.all(sid) as Array<Record<string, unknown>>) {
        const c = decodeContent(m.content);
        const msg: ChannelMessage = {
          sessionId: sid,
          id: Number(m.id),
          role: String(m.role),
          text: c.text,
          timestamp: ms(m.timestamp),
        };
        if (c.note) msg.note = c.note;
        const calls = m.tool_calls === null || m.tool_calls === undefined ? undefined : parseToolCalls(m.tool_calls);
        if (calls) msg.toolCalls = calls;
        if (typeof m.tool_call_id === 'string') msg.toolCallId = m.tool_call_id;
        if (typeof m.tool_name === 'string') msg.toolName = m.tool_name;
        if (typeof m.reasoning === 'string' && m.reasoning.trim()) msg.reasoning = m.reasoning;
        if (typeof m.finish_reason === 'string') msg.finishReason = m.finish_reason;
        messages.push(msg);
      }
  } catch (e) {
    return stateDbFailure(d.file, e, 'the session is not read this time');
  } finally {
    d.db.close();
  }
  withUsage(home, [session]);
  return { kind: 'ok', file: d.file, schemaVersion: HERMES_STATE_SCHEMA, session, messages };
}
