/**
 * The model and mode a person chose: per session (re-applied when it is reopened), and per
 * workspace and agent as the default for its next sessions (`talaria models --set` without
 * --session).
 */
import type { Database } from 'better-sqlite3';

export const name = 'session-choices';

export function up(db: Database): void {
  db.exec(`
    ALTER TABLE sessions ADD COLUMN model_id TEXT;
    ALTER TABLE sessions ADD COLUMN mode_id TEXT;

    CREATE TABLE agent_defaults (
      workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      provider     TEXT NOT NULL,
      profile      TEXT NOT NULL DEFAULT '',   -- '' = no profile (part of the key)
      model_id     TEXT,
      mode_id      TEXT,
      updated_at   INTEGER NOT NULL,
      PRIMARY KEY (workspace_id, provider, profile)
    );
  `);
}
