/**
 * A workspace may run Hermes in a profile of its own (`talaria-<folder>-<hash>`, created on the
 * first Hermes session there): a flag, since the name follows from the path.
 */
import type { Database } from 'better-sqlite3';

export const name = 'workspace-own-profile';

export function up(db: Database): void {
  db.exec(`ALTER TABLE workspaces ADD COLUMN own_profile INTEGER NOT NULL DEFAULT 0 CHECK (own_profile IN (0, 1));`);
}
