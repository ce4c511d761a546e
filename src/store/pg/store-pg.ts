/**
 * The store on a PostgreSQL server, behind the same Store interface as SQLite's: the same
 * repositories over the SQL port (sql-pg.ts) on one synchronous connection (sync-client.ts).
 * Its path is the server's address without the password; there is no home and nothing to
 * checkpoint. The recorders commit their batches on this connection (the SQLite writer thread is
 * for files: writer-thread.ts gives a PostgreSQL store none).
 */
import { assembleStore } from '../assemble.js';
import { StoreError } from '../errors.js';
import type { Logger } from '../../protocol/types.js';
import type { Store } from '../types.js';
import { checkPgVersion, migratePg } from './migrate.js';
import { PG_MIGRATIONS, type PgMigration } from './migrations/index.js';
import { pgSqlDb } from './sql-pg.js';
import { describePgUrl, openSyncPg, type SyncPg } from './sync-client.js';

export interface PgStoreOptions {
  readOnly?: boolean;
  logger?: Logger;
  now?: () => number;
  /** How long one statement may take before it fails with `store_busy` (ms, default 5000). */
  busyTimeoutMs?: number;
  /**
   * @internal Tests: an open connection to use (and leave open) instead of one of the store's own:
   * a connection's worker takes ~0.3 s to start under tsx, a schema per test a few ms.
   */
  connection?: SyncPg;
  /** @internal Tests substitute their own list. */
  pgMigrations?: readonly PgMigration[];
}

export { isPgUrl } from './url.js';

/**
 * The recorder's wire blocks (~150 KB a commit of 850 frames) are compressed as they are stored
 * (TOAST), and pglz took most of a commit's time there (paired, loaded machine: a commit 2.9 ms
 * with lz4 against 5.4 ms with pglz). A server without lz4 (or before 14) keeps its default: the
 * SET's failure is swallowed, so the connection still opens.
 */
const LZ4_TOAST = `DO $$ BEGIN SET default_toast_compression = 'lz4'; EXCEPTION WHEN OTHERS THEN NULL; END $$`;

export function openPgStore(url: string, opts: PgStoreOptions = {}): Store {
  const where = describePgUrl(url);
  const readOnly = opts.readOnly ?? false;
  const shared = opts.connection;
  const conn =
    shared ??
    openSyncPg(url, {
      ...(opts.busyTimeoutMs !== undefined ? { timeoutMs: opts.busyTimeoutMs } : {}),
      // Per connection (the worker reconnects with it): the server refuses every write.
      setup: [readOnly ? 'SET default_transaction_read_only = on' : LZ4_TOAST],
    });
  const db = pgSqlDb(conn);
  const migrations = opts.pgMigrations ?? PG_MIGRATIONS;
  let version: number;
  try {
    if (readOnly) version = checkPgVersion(db, migrations, where);
    else {
      const m = migratePg(db, migrations);
      if (m.applied.length > 0) opts.logger?.info('store: migrated', { path: where, applied: m.applied });
      version = m.version;
    }
  } catch (err) {
    if (!shared) conn.close();
    if (err instanceof StoreError) throw err;
    throw new StoreError(
      'open_failed',
      `Cannot open the Talaria store ${where}: ${(err as Error).message}`,
      {
        path: where,
      },
      { cause: err },
    );
  }
  return assembleStore({
    db,
    path: where,
    home: undefined,
    version,
    readOnly,
    readOnlyReason: readOnly ? 'opened read-only' : undefined,
    now: opts.now ?? Date.now,
    logger: opts.logger,
    // The server writes its own WAL back; nothing for a client to do.
    checkpoint: () => undefined,
    closeDb: () => {
      if (!shared) conn.close();
    },
  });
}
