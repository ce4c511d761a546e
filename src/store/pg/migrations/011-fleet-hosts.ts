/** SQLite's migration 011 (store/migrations/011-fleet-hosts.ts) in PostgreSQL's types: BIGINT ms times. */
import type { SqlDb } from '../../sql.js';

export const name = 'fleet-hosts';

export function up(db: SqlDb): void {
  db.exec(`
    CREATE TABLE fleet_hosts (
      id           TEXT PRIMARY KEY,
      name         TEXT NOT NULL,
      url          TEXT,
      public_key   TEXT NOT NULL,
      agents       TEXT NOT NULL,
      load         TEXT NOT NULL,
      started_at   BIGINT NOT NULL,
      heartbeat_at BIGINT NOT NULL,
      lease_until  BIGINT NOT NULL,
      revoked_at   BIGINT
    );
    ALTER TABLE sessions ADD COLUMN host_id TEXT;
    CREATE TABLE session_presence (
      session_id TEXT COLLATE "C" PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
      host_id    TEXT NOT NULL,
      status     TEXT NOT NULL CHECK (status IN ('idle', 'running', 'asking', 'closed')),
      updated_at BIGINT NOT NULL
    );
    CREATE INDEX session_presence_host ON session_presence (host_id);
  `);
}
