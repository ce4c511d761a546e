/** SQLite's migration 014 (store/migrations/014-workspace-host.ts): PostgreSQL alters in place. */
import type { SqlDb } from '../../sql.js';

export const name = 'workspace-host';

export function up(db: SqlDb): void {
  db.exec(`
    ALTER TABLE workspaces ADD COLUMN host_id TEXT NOT NULL DEFAULT '';
    ALTER TABLE workspaces DROP CONSTRAINT workspaces_path_key;
    ALTER TABLE workspaces ADD CONSTRAINT workspaces_host_path UNIQUE (host_id, path);
  `);
}
