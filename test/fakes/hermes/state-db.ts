/**
 * The real-schema SQLite `state.db` in $HERMES_HOME: the `sessions` table exactly as Hermes
 * 0.18.2 creates it (test/fixtures/hermes/state-db-0.18.2.sql, schema_version 21, WAL), one row
 * per ACP session, its token and cost columns updated per model call the way
 * `SessionDB.update_token_counts` does (incremental: tokens add up, estimated_cost_usd adds
 * COALESCE(cost, 0), so an unknown price stays 0.0 with cost_status 'unknown'), and the
 * per-model split in `session_model_usage` as `_record_model_usage` keeps it.
 * The transcripts themselves stay in the emulator's JSON store (state.ts).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { Settings } from './config.js';
import type { SessionRecord } from './state.js';

const SCHEMA = readFileSync(
  join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/hermes/state-db-0.18.2.sql'),
  'utf8',
);
export const SCHEMA_VERSION = 21;

/** The state.db of `home`, created with the real schema when absent (what Hermes' SessionDB() does). */
export function openStateDb(home: string): Database.Database {
  mkdirSync(home, { recursive: true });
  // Hermes connects with timeout=1.0 and retries a locked write itself (writeStateDb).
  const db = new Database(join(home, 'state.db'), { timeout: 1000 });
  // apply_wal_with_fallback: probe first, so a second process never re-sets the mode under the first.
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.exec(SCHEMA);
  if (!db.prepare('SELECT version FROM schema_version LIMIT 1').get())
    db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(SCHEMA_VERSION);
  return db;
}

/** SessionDB._WRITE_MAX_RETRIES and its jitter (hermes_state.py): a locked write is retried, not failed. */
const WRITE_MAX_RETRIES = 15;
const WRITE_RETRY_MIN_MS = 20;
const WRITE_RETRY_MAX_MS = 150;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function isLocked(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('SQLITE_BUSY')) return true;
  const msg = e instanceof Error ? e.message.toLowerCase() : '';
  return msg.includes('locked') || msg.includes('busy');
}

/**
 * One write transaction on the state.db of `home` (BEGIN IMMEDIATE), as SessionDB._execute_write
 * runs it: when the database is locked (another `hermes acp` on the same home), sleep a random
 * 20–150 ms and try again, up to 15 times. Two processes on one home run side by side.
 */
export function writeStateDb<T>(home: string, fn: (db: Database.Database) => T): T {
  for (let attempt = 1; ; attempt++) {
    try {
      const db = openStateDb(home);
      try {
        return db.transaction(() => fn(db)).immediate();
      } finally {
        db.close();
      }
    } catch (e) {
      if (!isLocked(e) || attempt >= WRITE_MAX_RETRIES) throw e;
      // Python's time.sleep: this process has nothing else to do while it waits for the lock.
      Atomics.wait(sleeper, 0, 0, WRITE_RETRY_MIN_MS + Math.random() * (WRITE_RETRY_MAX_MS - WRITE_RETRY_MIN_MS));
    }
  }
}

/** `_insert_session_row` (source 'acp', model_config {"cwd": ...}; the route's keys join it with the first model call), enriching NULL columns on conflict. */
export function upsertSessionRow(db: Database.Database, rec: SessionRecord): void {
  db.prepare(
    `INSERT INTO sessions (id, source, model, model_config, parent_session_id, started_at)
     VALUES (?, 'acp', ?, ?, ?, ?)
     ON CONFLICT(id) DO UPDATE SET
       model = COALESCE(sessions.model, excluded.model),
       model_config = COALESCE(sessions.model_config, excluded.model_config),
       parent_session_id = COALESCE(sessions.parent_session_id, excluded.parent_session_id)`,
  ).run(rec.id, rec.model, JSON.stringify({ cwd: rec.cwd }), rec.parentId, rec.startedAt / 1000);
  db.prepare('UPDATE sessions SET message_count = ?, title = COALESCE(?, title) WHERE id = ?').run(
    rec.history.length,
    rec.title,
    rec.id,
  );
  // end_session(id, 'compression') when a rotation ends the head (the row stays, loadable).
  if (rec.endReason)
    db.prepare(
      'UPDATE sessions SET ended_at = COALESCE(ended_at, ?), end_reason = COALESCE(end_reason, ?) WHERE id = ?',
    ).run((rec.endedAt ?? Date.now()) / 1000, rec.endReason, rec.id);
}

/** One `update_token_counts` per completed model call (conversation_loop.py), incremental. */
export function recordModelCalls(
  home: string,
  rec: SessionRecord,
  calls: number,
  perCall: { input: number; output: number },
  route: { baseUrl: string; price: Settings['price'] },
): void {
  if (calls <= 0) return;
  writeStateDb(home, (db) => {
    const update = db.prepare(
      `UPDATE sessions SET
         input_tokens = input_tokens + ?,
         output_tokens = output_tokens + ?,
         estimated_cost_usd = COALESCE(estimated_cost_usd, 0) + COALESCE(?, 0),
         cost_status = COALESCE(?, cost_status),
         cost_source = COALESCE(?, cost_source),
         pricing_version = COALESCE(?, pricing_version),
         billing_provider = COALESCE(billing_provider, ?),
         billing_base_url = COALESCE(billing_base_url, ?),
         model = COALESCE(model, ?),
         model_config = json_set(COALESCE(model_config, '{}'), '$.provider', ?, '$.base_url', ?, '$.api_mode', 'chat_completions'),
         api_call_count = COALESCE(api_call_count, 0) + 1
       WHERE id = ?`,
    );
    // _record_model_usage: the per-(session, model, route) split, in the same transaction.
    const perModel = db.prepare(
      `INSERT INTO session_model_usage (
         session_id, model, billing_provider, billing_base_url, billing_mode,
         api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
         estimated_cost_usd, actual_cost_usd, cost_status, cost_source, first_seen, last_seen
       ) VALUES (?, ?, ?, ?, '', 1, ?, ?, 0, 0, 0, ?, 0.0, ?, ?, ?, ?)
       ON CONFLICT(session_id, model, billing_provider, billing_base_url, billing_mode) DO UPDATE SET
         api_call_count = api_call_count + excluded.api_call_count,
         input_tokens = input_tokens + excluded.input_tokens,
         output_tokens = output_tokens + excluded.output_tokens,
         estimated_cost_usd = estimated_cost_usd + excluded.estimated_cost_usd,
         cost_status = COALESCE(excluded.cost_status, cost_status),
         cost_source = COALESCE(excluded.cost_source, cost_source),
         last_seen = excluded.last_seen`,
    );
    const p = route.price;
    const cost = p ? (perCall.input * p.input + perCall.output * p.output) / 1_000_000 : null;
    for (let i = 0; i < calls; i++) {
      update.run(
        perCall.input,
        perCall.output,
        cost,
        p ? 'estimated' : 'unknown',
        // A priced custom endpoint in real 0.18.2: its /models pricing; pricing_version is never written.
        p ? 'provider_models_api' : 'none',
        null,
        rec.provider,
        route.baseUrl || null,
        rec.model,
        rec.provider,
        route.baseUrl || null,
        rec.id,
      );
      const now = Date.now() / 1000;
      perModel.run(
        rec.id,
        rec.model || 'unknown',
        rec.provider || '',
        route.baseUrl || '',
        perCall.input,
        perCall.output,
        cost ?? 0,
        p ? 'estimated' : 'unknown',
        p ? 'provider_models_api' : 'none',
        now,
        now,
      );
    }
  });
}
