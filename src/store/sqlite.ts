/**
 * The store in SQLite: one file under Talaria's home, its repositories prepared once on one
 * connection. The handle stays in here: the rest of Talaria gets the Store interface (types.ts).
 * A `postgres://` URL opens the PostgreSQL store instead (pg/store-pg.ts), behind the same interface.
 */
import { assembleStore } from './assemble.js';
import { openDatabase, type Db, type OpenDbOptions } from './db.js';
import { openPgStore, type PgStoreOptions } from './pg/store-pg.js';
import { isPgUrl } from './pg/url.js';
import { StoreError } from './errors.js';
import type { Store } from './types.js';

export interface StoreOptions extends OpenDbOptions, PgStoreOptions {
  /** Clock for created/updated stamps (tests). */
  now?: () => number;
  /** A PostgreSQL server (`postgres://…` or `postgresql://…`) instead of a SQLite file. */
  url?: string;
}

/** The open database behind each SQLite store: for the store's own tests, never handed to a face. */
const handles = new WeakMap<Store, Db>();

/** @internal The database of a store opened here (tests inspect and damage it; src/ outside store/ must not). */
export function rawDb(store: Store): Db {
  const db = handles.get(store);
  if (!db) throw new Error('not a SQLite store');
  return db;
}

export function openStore(opts: StoreOptions = {}): Store {
  if (opts.url !== undefined) {
    if (!isPgUrl(opts.url))
      throw new StoreError('invalid_argument', 'a store url must start with postgres:// or postgresql://');
    return openPgStore(opts.url, opts);
  }
  const opened = openDatabase(opts);
  const { db } = opened;
  const store = assembleStore({
    db,
    path: opened.path,
    home: opened.home,
    version: opened.version,
    readOnly: opened.readOnly,
    readOnlyReason: opened.readOnlyReason,
    now: opts.now ?? Date.now,
    logger: opts.logger,
    // PASSIVE: copies what it can without waiting for other connections' readers or writers.
    checkpoint: () => void db.pragma('wal_checkpoint(PASSIVE)'),
    closeDb: () => db.close(),
  });
  handles.set(store, db);
  return store;
}
