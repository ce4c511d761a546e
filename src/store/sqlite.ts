/**
 * The store in SQLite: one file under Talaria's home, its repositories prepared once on one
 * connection. The handle stays in here: the rest of Talaria gets the Store interface (types.ts).
 * A `postgres://` URL opens the PostgreSQL store instead (pg/store-pg.ts), behind the same interface.
 */
import { assembleStore } from './assemble.js';
import { backgroundCheckpoints, type BackgroundCheckpoints } from './checkpoints.js';
import { openDatabase, type Db, type OpenDbOptions } from './db.js';
import { openPgStore, type PgStoreOptions } from './pg/store-pg.js';
import { isPgUrl } from './pg/url.js';
import { StoreError } from './errors.js';
import type { Store } from './types.js';
import type { WriterBatch } from './writer-batch.js';

export interface StoreOptions extends OpenDbOptions, PgStoreOptions {
  /** Clock for created/updated stamps (tests). */
  now?: () => number;
  /** A PostgreSQL server (`postgres://…` or `postgresql://…`) instead of a SQLite file. */
  url?: string;
  /** @internal Bytes committed between two checkpoints on the writer thread (checkpoints.ts; tests). */
  checkpointEveryBytes?: number;
}

/** The open database behind each SQLite store: for the store's own tests, never handed to a face. */
const handles = new WeakMap<Store, Db>();

/** @internal The database of a store opened here (tests inspect and damage it; src/ outside store/ must not). */
export function rawDb(store: Store): Db {
  const db = handles.get(store);
  if (!db) throw new Error('not a SQLite store');
  return db;
}

const checkpointsOf = new WeakMap<Store, BackgroundCheckpoints>();

/** @internal Checkpoints a SQLite store's writer thread ran for it (tests). */
export function backgroundCheckpointCount(store: Store): number {
  return checkpointsOf.get(store)?.checkpoints ?? 0;
}

export function openStore(opts: StoreOptions = {}): Store {
  if (opts.url !== undefined) {
    if (!isPgUrl(opts.url))
      throw new StoreError('invalid_argument', 'a store url must start with postgres:// or postgresql://');
    return openPgStore(opts.url, opts);
  }
  const opened = openDatabase(opts);
  const { db } = opened;
  // PASSIVE: copies what it can without waiting for other connections' readers or writers.
  const checkpoint = () => void db.pragma('wal_checkpoint(PASSIVE)');
  const background =
    opened.readOnly || opened.path === ':memory:'
      ? undefined
      : backgroundCheckpoints({
          path: opened.path,
          here: checkpoint,
          ...(opts.checkpointEveryBytes !== undefined ? { everyBytes: opts.checkpointEveryBytes } : {}),
          ...(opts.logger ? { logger: opts.logger } : {}),
        });
  const store = assembleStore({
    db,
    path: opened.path,
    home: opened.home,
    version: opened.version,
    readOnly: opened.readOnly,
    readOnlyReason: opened.readOnlyReason,
    now: opts.now ?? Date.now,
    logger: opts.logger,
    checkpoint,
    ...(background ? { committed: (b: WriterBatch) => background.committed(b) } : {}),
    closeDb: () => {
      // The thread's connection first: the main one, closing last, checkpoints and removes the WAL.
      background?.close();
      db.close();
    },
  });
  handles.set(store, db);
  if (background) checkpointsOf.set(store, background);
  return store;
}
