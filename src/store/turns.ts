/** Turns: prompt, stop reason, per-turn usage, error, timings. */
import type { SqlDb } from './sql.js';
import { fromJson, toJson } from './json.js';

export interface StoredTurn {
  /** Row id (turn ids restart with each live Session, so they are not unique across restarts). */
  rowId: number;
  sessionId: string;
  turnId: string;
  prompt?: unknown[];
  stopReason?: string;
  usage?: Record<string, unknown>;
  error?: { code: string; message: string; data?: unknown };
  startedAt?: number;
  endedAt?: number;
  durationMs?: number;
}

export interface UsageTotals {
  turn?: Record<string, number>;
  session: Record<string, number>;
}

export interface TurnStart {
  turnId: string;
  prompt?: unknown[];
  startedAt: number;
}

export interface TurnEnd {
  turnId: string;
  stopReason: string;
  usage?: unknown;
  error?: unknown;
  endedAt: number;
  durationMs: number;
}

interface Row {
  id: number;
  session_id: string;
  turn_id: string;
  prompt: string | null;
  stop_reason: string | null;
  usage: string | null;
  error: string | null;
  started_at: number | null;
  ended_at: number | null;
  duration_ms: number | null;
}

/**
 * What a turn row keeps of its prompt: the blocks, with text or data past PROMPT_BLOCK_KEPT cut
 * (the thread's user message holds the whole text, the wire log the whole frame). A full copy
 * here made a 30 MB prompt cost a third copy, and a fourth when the row was rewritten at the end.
 */
export const PROMPT_BLOCK_KEPT = 64 * 1024;

export function keptPrompt(prompt: unknown[] | undefined): unknown[] | undefined {
  if (!prompt) return prompt;
  return prompt.map((b) => {
    if (typeof b !== 'object' || b === null) return b;
    const block = b as Record<string, unknown>;
    const cut: Record<string, unknown> = {};
    for (const key of ['text', 'data'] as const) {
      const v = block[key];
      if (typeof v === 'string' && v.length > PROMPT_BLOCK_KEPT) cut[key] = v.length;
    }
    if (Object.keys(cut).length === 0) return b;
    const out: Record<string, unknown> = { ...block };
    for (const key of Object.keys(cut))
      out[key] = key === 'text' ? (block.text as string).slice(0, PROMPT_BLOCK_KEPT) : '';
    const meta =
      typeof block._meta === 'object' && block._meta !== null ? (block._meta as Record<string, unknown>) : {};
    return { ...out, _meta: { ...meta, talaria: { cut } } };
  });
}

function toTurn(r: Row): StoredTurn {
  const t: StoredTurn = { rowId: r.id, sessionId: r.session_id, turnId: r.turn_id };
  const prompt = fromJson<unknown[]>(r.prompt);
  if (prompt !== undefined) t.prompt = prompt;
  if (r.stop_reason !== null) t.stopReason = r.stop_reason;
  const usage = fromJson<Record<string, unknown>>(r.usage);
  if (usage !== undefined) t.usage = usage;
  const error = fromJson<StoredTurn['error']>(r.error);
  if (error !== undefined) t.error = error;
  if (r.started_at !== null) t.startedAt = r.started_at;
  if (r.ended_at !== null) t.endedAt = r.ended_at;
  if (r.duration_ms !== null) t.durationMs = r.duration_ms;
  return t;
}

export type TurnsRepo = ReturnType<typeof createTurnsRepo>;

export function createTurnsRepo(db: SqlDb) {
  const insertStart = db.prepare<[string, string, string | null, number], { id: number }>(
    'INSERT INTO turns (session_id, turn_id, prompt, started_at) VALUES (?, ?, ?, ?) RETURNING id',
  );
  // The newest still-open row with this turn id is the one that ends.
  const updateEnd = db.prepare(
    `UPDATE turns SET stop_reason = ?, usage = ?, error = ?, ended_at = ?, duration_ms = ?
     WHERE id = (SELECT id FROM turns WHERE session_id = ? AND turn_id = ? AND ended_at IS NULL ORDER BY id DESC LIMIT 1)`,
  );
  const insertEnded = db.prepare(
    `INSERT INTO turns (session_id, turn_id, stop_reason, usage, error, started_at, ended_at, duration_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const list = db.prepare<[string], Row>('SELECT * FROM turns WHERE session_id = ? ORDER BY id');
  const byRow = db.prepare<[number], Row>('SELECT * FROM turns WHERE id = ?');
  // MAX(id) reads the session's part of the turns_session index only (no sort), then one row;
  // the prompt (images and all) and usage are left on disk.
  const lastRow = db.prepare<[string], Row>(
    `SELECT id, session_id, turn_id, NULL AS prompt, stop_reason, NULL AS usage, error, started_at, ended_at, duration_ms
     FROM turns WHERE id = (SELECT MAX(id) FROM turns WHERE session_id = ?)`,
  );

  // Ended turns only, oldest first; the usage column alone (no prompts, which may hold images).
  const usages = db.prepare<[string], { usage: string | null }>(
    'SELECT usage FROM turns WHERE session_id = ? AND ended_at IS NOT NULL ORDER BY id',
  );

  return {
    /** Records a turn that started; returns its row id. */
    start(sessionId: string, t: TurnStart): number {
      return insertStart.get(sessionId, t.turnId, toJson(keptPrompt(t.prompt)), t.startedAt)!.id;
    },
    /**
     * Closes the newest open row for the turn id. A turn whose start was never recorded (a queued
     * turn dropped, a recorder attached mid-turn) gets a row of its own.
     */
    end(sessionId: string, t: TurnEnd): void {
      const usage = toJson(t.usage);
      const error = toJson(t.error);
      const r = updateEnd.run(t.stopReason, usage, error, t.endedAt, t.durationMs, sessionId, t.turnId);
      if (r.changes === 0) {
        insertEnded.run(
          sessionId,
          t.turnId,
          t.stopReason,
          usage,
          error,
          t.endedAt - t.durationMs,
          t.endedAt,
          t.durationMs,
        );
      }
    },
    list(sessionId: string): StoredTurn[] {
      return list.all(sessionId).map(toTurn);
    },
    /** The session's newest turn (started or ended), without its prompt and usage: how it ended. */
    last(sessionId: string): StoredTurn | undefined {
      const r = lastRow.get(sessionId);
      return r ? toTurn(r) : undefined;
    },
    /**
     * Token usage of the session's last ended turn (absent when it reported none) and of all its
     * turns summed, counter by counter: what a client shows again after a reload or a restart.
     */
    usage(sessionId: string): UsageTotals {
      const out: UsageTotals = { session: {} };
      for (const r of usages.all(sessionId)) {
        const u = fromJson<Record<string, unknown>>(r.usage);
        const counts: Record<string, number> = {};
        for (const [k, v] of Object.entries(u ?? {})) if (typeof v === 'number' && Number.isFinite(v)) counts[k] = v;
        if (Object.keys(counts).length === 0) {
          delete out.turn;
          continue;
        }
        out.turn = counts;
        for (const [k, v] of Object.entries(counts)) out.session[k] = (out.session[k] ?? 0) + v;
      }
      return out;
    },
    get(rowId: number): StoredTurn | undefined {
      const r = byRow.get(rowId);
      return r ? toTurn(r) : undefined;
    },
  };
}
