/**
 * Each session's event stream as `talaria serve` sends it (the bus events after Talaria's fixes,
 * plus the server's own), with a per-session sequence number: clients resume with `since: N`
 * from here, exactly, across restarts. Written and read by src/server/event-log.ts.
 */
import type { Database } from 'better-sqlite3';

export const name = 'session-events';

export function up(db: Database): void {
  db.exec(`
    CREATE TABLE session_events (
      session_id TEXT NOT NULL,
      seq        INTEGER NOT NULL,
      at         INTEGER NOT NULL,
      type       TEXT NOT NULL,
      data       TEXT NOT NULL,           -- the event's payload (JSON), without the envelope
      PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID;
  `);
}
