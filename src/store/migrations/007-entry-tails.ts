/**
 * Text appended to a stored entry since its row was last written in full (a streamed message):
 * one row per commit that only added text, so a long reply recorded at a paced rate costs each
 * byte once instead of its whole row on every commit. Reading an entry concatenates its tails
 * (those whose entry_id matches the row's) onto its `text`; writing the row in full drops them.
 */
import type { Database } from 'better-sqlite3';

export const name = 'entry-tails';

export function up(db: Database): void {
  db.exec(`
    CREATE TABLE entry_tails (
      id         INTEGER PRIMARY KEY,          -- append order
      session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      idx        INTEGER NOT NULL,
      entry_id   TEXT NOT NULL,                -- the entry the text belongs to (a row replaced since ignores it)
      text       TEXT NOT NULL
    );
    CREATE INDEX entry_tails_entry ON entry_tails (session_id, idx, id);
  `);
}
