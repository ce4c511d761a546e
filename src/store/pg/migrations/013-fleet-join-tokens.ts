/** SQLite's migration 013 (store/migrations/013-fleet-join-tokens.ts) in PostgreSQL's types: BIGINT ms times. */
import type { SqlDb } from '../../sql.js';

export const name = 'fleet-join-tokens';

export function up(db: SqlDb): void {
  db.exec(`
    CREATE TABLE fleet_join_tokens (
      id           TEXT PRIMARY KEY,
      token_hash   TEXT NOT NULL UNIQUE,
      label        TEXT,
      created_at   BIGINT NOT NULL,
      expires_at   BIGINT NOT NULL,
      uses         INTEGER NOT NULL DEFAULT 0,
      last_used_at BIGINT
    );
  `);
}
