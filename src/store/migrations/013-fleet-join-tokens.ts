/**
 * Join tokens of a fleet (docs/fleet.md §5): a host joins (its first registration in fleet_hosts,
 * or after a revocation) only with one. Only the token's SHA-256 is stored; a token is good for
 * any number of hosts until it expires (a team adds several boxes with one), counted in `uses`.
 */
import type { Database } from 'better-sqlite3';

export const name = 'fleet-join-tokens';

export const SQL = `
  CREATE TABLE fleet_join_tokens (
    id           TEXT PRIMARY KEY,
    token_hash   TEXT NOT NULL UNIQUE,
    label        TEXT,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    uses         INTEGER NOT NULL DEFAULT 0,
    last_used_at INTEGER
  );
`;

export function up(db: Database): void {
  db.exec(SQL);
}
