/**
 * The store in SQLite: one file under Talaria's home, its repositories prepared once on one
 * connection. The handle stays in here: the rest of Talaria gets the Store interface (types.ts).
 */
import { openDatabase, type Db, type OpenDbOptions } from './db.js';
import { createBranchesRepo } from './branches.js';
import { createCapsRefsRepo } from './caps-refs.js';
import { createDefaultsRepo } from './defaults.js';
import { createEntriesRepo } from './entries.js';
import { createLeasesRepo } from './leases.js';
import { createPermissionsRepo } from './permissions.js';
import { createSessionEventsRepo } from './session-events.js';
import { createSessionsRepo } from './sessions.js';
import { createTurnsRepo } from './turns.js';
import { createWireLogRepo } from './wire-log.js';
import { createWorkspacesRepo } from './workspaces.js';
import { guarded, guardFn } from './guard.js';
import type { Store } from './types.js';
import { batchCommitter, type WriterBatch } from './writer-batch.js';

export interface StoreOptions extends OpenDbOptions {
  /** Clock for created/updated stamps (tests). */
  now?: () => number;
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
  const opened = openDatabase(opts);
  const { db } = opened;
  const now = opts.now ?? Date.now;
  let closed = false;
  const closing = new Set<() => void>();
  let commit: ((b: WriterBatch) => number) | undefined;
  const store: Store = {
    path: opened.path,
    home: opened.home,
    version: opened.version,
    readOnly: opened.readOnly,
    readOnlyReason: opened.readOnlyReason,
    // Guarded: a fault of the file surfaces as a StoreError naming it (guard.ts), whichever face asked.
    workspaces: guarded(createWorkspacesRepo(db, now), opened.path),
    sessions: guarded(createSessionsRepo(db, now), opened.path),
    wire: guarded(createWireLogRepo(db), opened.path),
    entries: guarded(createEntriesRepo(db, now), opened.path),
    turns: guarded(createTurnsRepo(db), opened.path),
    permissions: guarded(createPermissionsRepo(db, now), opened.path),
    defaults: guarded(createDefaultsRepo(db, now), opened.path),
    leases: guarded(createLeasesRepo(db, now), opened.path),
    branches: guarded(createBranchesRepo(db, now), opened.path),
    events: guarded(createSessionEventsRepo(db), opened.path),
    capsRefs: guarded(createCapsRefsRepo(db), opened.path),
    // PASSIVE: copies what it can without waiting for other connections' readers or writers.
    checkpoint: () => void db.pragma('wal_checkpoint(PASSIVE)'),
    transaction: guardFn((fn: () => unknown) => db.transaction(fn).immediate(), opened.path) as Store['transaction'],
    // Prepared on first use (a reading face never records), then once per store.
    commitBatch: (b) => (commit ??= batchCommitter({ ...store, db }))(b),
    get closed() {
      return closed;
    },
    beforeClose(fn) {
      const entry = () => fn();
      closing.add(entry);
      return () => void closing.delete(entry);
    },
    close() {
      if (closed) return;
      // A failing writer must not keep the database open; writers report their own failures.
      for (const fn of [...closing]) {
        try {
          fn();
        } catch (err) {
          opts.logger?.error('store: a writer failed while the store closed', { error: String(err) });
        }
      }
      closing.clear();
      closed = true;
      db.close();
    },
  };
  handles.set(store, db);
  return store;
}
