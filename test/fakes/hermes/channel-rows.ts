/**
 * Hermes sessions from its other channels, as rows of the emulator's state.db (the real 0.18.2
 * schema), so CI covers them without real Hermes:
 * - `seedRealCliRows`: the rows real `hermes chat -Q -q` wrote (test/fixtures/hermes-0.18.2-real/
 *   cli-sessions.json: two sessions, twelve messages, every column as dumped);
 * - `seedTelegramSession`: a gateway conversation written the way Hermes writes one —
 *   `_insert_session_row` (hermes_state.py:1785: source = the platform, user_id, session_key,
 *   chat_id, chat_type), gateway ids `YYYYMMDD_HHMMSS_<8 hex>` (gateway/session.py:1960),
 *   `append_message` rows; an in-place compaction's old rows kept `active 0, compacted 1`; and,
 *   with `continued`, a compression continuation (parent ended 'compression', new row with
 *   parent_session_id, its first message the `[PRIOR CONTEXT` summary as an assistant row).
 */
import { readFileSync } from 'node:fs';
import { openStateDb } from './state-db.js';

interface Dump {
  sessions: Array<Record<string, unknown>>;
  messages: Array<Record<string, unknown>>;
  session_model_usage: Array<Record<string, unknown>>;
}

export const REAL_CLI = JSON.parse(
  readFileSync(new URL('../../fixtures/hermes-0.18.2-real/cli-sessions.json', import.meta.url), 'utf8'),
) as Dump & { hermes: string; schemaVersion: number };

function insert(db: ReturnType<typeof openStateDb>, table: string, row: Record<string, unknown>): void {
  const cols = Object.keys(row);
  db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`).run(row);
}

/** The real cli rows, every column as real Hermes wrote it. */
export function seedRealCliRows(home: string): void {
  const db = openStateDb(home);
  try {
    db.transaction(() => {
      for (const s of REAL_CLI.sessions) insert(db, 'sessions', s);
      for (const m of REAL_CLI.messages) insert(db, 'messages', m);
      for (const u of REAL_CLI.session_model_usage) insert(db, 'session_model_usage', u);
    })();
  } finally {
    db.close();
  }
}

/** The head of the compaction summary that starts a continuation (real 0.18.2 rows). */
export const PRIOR =
  '[PRIOR CONTEXT — for reference only; not a new message]\n\n\n[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]\n\n';

export interface TelegramSeed {
  id?: string;
  /** Epoch seconds of the first message. */
  at?: number;
  continued?: boolean;
  title?: string | null;
}

/** A telegram conversation as the gateway writes it; returns its ids (root, continuation). */
export function seedTelegramSession(home: string, o: TelegramSeed = {}): { id: string; continuation?: string } {
  const id = o.id ?? '20261205_181500_3fa85f64';
  const cont = o.continued ? '20261205_182000_9b1c2d3e' : undefined;
  const t0 = o.at ?? 1_796_500_000;
  const db = openStateDb(home);
  const session = (sid: string, parent: string | null, start: number) =>
    insert(db, 'sessions', {
      id: sid,
      source: 'telegram',
      user_id: '81234567',
      session_key: 'agent:main:telegram:dm:81234567',
      chat_id: '81234567',
      chat_type: 'dm',
      model: 'fake-model',
      model_config: JSON.stringify({ max_iterations: 90, reasoning_config: null, max_tokens: null }),
      system_prompt: 'You are Hermes.',
      parent_session_id: parent,
      started_at: start,
      billing_provider: 'custom',
      cost_status: 'unknown',
      cost_source: 'none',
      estimated_cost_usd: 0,
      title: o.title === undefined ? 'Grocery list' : o.title,
    });
  let mid = 9000;
  const message = (
    sid: string,
    role: string,
    content: string | null,
    at: number,
    extra: Record<string, unknown> = {},
  ) => insert(db, 'messages', { id: ++mid, session_id: sid, role, content, timestamp: at, ...extra });
  try {
    db.transaction(() => {
      session(id, null, t0);
      // Compacted in place earlier: kept, hidden (active 0), never shown or seeded.
      message(id, 'user', 'an old message compaction replaced', t0, { active: 0, compacted: 1 });
      message(id, 'user', 'Add eggs and milk to the grocery list', t0 + 1);
      message(id, 'assistant', 'Added eggs and milk.', t0 + 2, { finish_reason: 'stop' });
      // Multimodal content is stored as "\0json:" + JSON (hermes_state.py:3748).
      message(
        id,
        'user',
        '\u0000json:' +
          JSON.stringify([
            { type: 'text', text: 'And this, from the photo' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ]),
        t0 + 3,
      );
      message(id, 'assistant', 'Bread, from the photo.', t0 + 4, { finish_reason: 'stop' });
      db.prepare(
        'UPDATE sessions SET message_count = 4, input_tokens = 3000, output_tokens = 40, api_call_count = 2 WHERE id = ?',
      ).run(id);
      if (cont) {
        db.prepare("UPDATE sessions SET ended_at = ?, end_reason = 'compression' WHERE id = ?").run(t0 + 5, id);
        session(cont, id, t0 + 5);
        // As real 0.18.2 writes it (profiles lineage/rotate of /work/hermes-real): an assistant row.
        message(cont, 'assistant', `${PRIOR}[CONTEXT COMPACTION — REFERENCE ONLY] a grocery list`, t0 + 5);
        message(cont, 'user', 'What is on the list now?', t0 + 6);
        message(cont, 'assistant', 'Eggs, milk and bread.', t0 + 7, { finish_reason: 'stop' });
        db.prepare(
          "UPDATE sessions SET message_count = 3, input_tokens = 500, output_tokens = 10, api_call_count = 1, title = 'Grocery list #2' WHERE id = ?",
        ).run(cont);
      }
    })();
  } finally {
    db.close();
  }
  return cont ? { id, continuation: cont } : { id };
}
