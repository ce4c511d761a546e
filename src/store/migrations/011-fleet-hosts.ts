/**
 * Hosts of a fleet (docs/fleet.md §2): each `talaria serve` sharing one PostgreSQL registers a row
 * with a heartbeat lease; sessions remember the host that created them; the owner writes each live
 * session's status in session_presence so other hosts can show it. A single-host store leaves
 * all three empty (host_id NULL): the same schema on both backends, used on PostgreSQL.
 */
import type { Database } from 'better-sqlite3';

export const name = 'fleet-hosts';

export const SQL = `
  CREATE TABLE fleet_hosts (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    url          TEXT,
    public_key   TEXT NOT NULL,
    agents       TEXT NOT NULL,
    load         TEXT NOT NULL,
    started_at   INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL,
    lease_until  INTEGER NOT NULL,
    revoked_at   INTEGER
  );
  ALTER TABLE sessions ADD COLUMN host_id TEXT;
  CREATE TABLE session_presence (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    host_id    TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('idle', 'running', 'asking', 'closed')),
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX session_presence_host ON session_presence (host_id);
`;

export function up(db: Database): void {
  db.exec(SQL);
}
