/**
 * An `entries.json` cell of 64 KiB or more may be a BLOB: the row's JSON deflated (raw deflate,
 * store/entries.ts). No table changes; the version is what matters: a Talaria from before it
 * refuses this store (a newer schema) instead of reading such rows as damaged entries.
 */
import type { Database } from 'better-sqlite3';

export const name = 'deflated-entries';

export function up(_db: Database): void {
  // Nothing to change in the schema: existing rows stay text, and both forms are read.
}
