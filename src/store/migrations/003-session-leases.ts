/** Writer leases: which Talaria process is writing a session now (two writers garble its thread). */
import type { Database } from 'better-sqlite3';

export const name = 'session-leases';

export function up(db: Database): void {
  db.exec(`
    CREATE TABLE session_leases (
      session_id  TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
      owner       TEXT NOT NULL,      -- a random token per harness instance
      pid         INTEGER NOT NULL,   -- the holder's process (a dead pid on the same host frees it)
      host        TEXT NOT NULL,
      acquired_at INTEGER NOT NULL
    );
  `);
}
