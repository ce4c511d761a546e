/**
 * A workspace is a path on one host (docs/fleet.md §2): `host_id` ('' on a single host's store and
 * for rows made before the fleet), unique with the path. '' rather than NULL: NULLs are distinct in
 * a UNIQUE constraint, and a plain (host_id, path) constraint reads the same on both backends.
 *
 * SQLite keeps the old UNIQUE(path) in the table definition, so the table is rebuilt. Migrations
 * run in a transaction with foreign keys on (PRAGMA foreign_keys cannot change there): dropping
 * the old table fires the ON DELETE actions of sessions (SET NULL) and agent_defaults (CASCADE),
 * and renaming it would rewrite their REFERENCES. So their links are kept aside and put back
 * once the new table has taken the name (ids are unchanged).
 */
import type { Database } from 'better-sqlite3';

export const name = 'workspace-host';

export function up(db: Database): void {
  db.exec(`
    CREATE TABLE workspaces_014 (
      id               TEXT PRIMARY KEY,
      path             TEXT NOT NULL,
      name             TEXT NOT NULL,
      default_provider TEXT,
      profile          TEXT,
      created_at       INTEGER NOT NULL,
      updated_at       INTEGER NOT NULL,
      own_profile      INTEGER NOT NULL DEFAULT 0 CHECK (own_profile IN (0, 1)),
      host_id          TEXT NOT NULL DEFAULT '',
      UNIQUE (host_id, path)
    );
    INSERT INTO workspaces_014 (id, path, name, default_provider, profile, created_at, updated_at, own_profile)
      SELECT id, path, name, default_provider, profile, created_at, updated_at, own_profile FROM workspaces;
    -- Keyed: the UPDATE below looks each session up (a store may hold many thousands).
    CREATE TEMP TABLE m014_sessions (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL);
    INSERT INTO m014_sessions SELECT id, workspace_id FROM sessions WHERE workspace_id IS NOT NULL;
    CREATE TEMP TABLE m014_defaults AS SELECT * FROM agent_defaults;
    DROP TABLE workspaces;
    ALTER TABLE workspaces_014 RENAME TO workspaces;
    UPDATE sessions SET workspace_id = (SELECT m.workspace_id FROM m014_sessions m WHERE m.id = sessions.id)
      WHERE id IN (SELECT id FROM m014_sessions);
    INSERT INTO agent_defaults SELECT * FROM m014_defaults;
    DROP TABLE m014_sessions;
    DROP TABLE m014_defaults;
  `);
}
