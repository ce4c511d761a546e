/**
 * A Store from an open SQL port: the repositories prepared once on it, each guarded (guard.ts),
 * the batch commit, the close protocol. The same for both backends (sqlite.ts, pg/store-pg.ts);
 * what differs (checkpointing, the transaction's lock, closing the handle) is passed in.
 */
import type { Logger } from '../protocol/types.js';
import { createBranchesRepo } from './branches.js';
import { createCapsRefsRepo } from './caps-refs.js';
import { createDefaultsRepo } from './defaults.js';
import { createEntriesRepo } from './entries.js';
import { createFleetHostsRepo } from './fleet-hosts.js';
import { createFleetTokensRepo } from './fleet-tokens.js';
import { createLeasesRepo } from './leases.js';
import { createPermissionsRepo } from './permissions.js';
import { createSessionEventsRepo } from './session-events.js';
import { createSessionPresenceRepo } from './session-presence.js';
import { createSessionsRepo } from './sessions.js';
import { createTurnsRepo } from './turns.js';
import { createWireLogRepo } from './wire-log.js';
import { createWorkspacesRepo } from './workspaces.js';
import { guarded, guardFn } from './guard.js';
import type { SqlDb } from './sql.js';
import type { Store } from './types.js';
import { batchCommitter, type WriterBatch } from './writer-batch.js';

export interface StoreParts {
  db: SqlDb;
  path: string;
  home: string | undefined;
  version: number;
  readOnly: boolean;
  readOnlyReason: string | undefined;
  now: () => number;
  logger: Logger | undefined;
  checkpoint(): void;
  /** Closes the handle (after the beforeClose callbacks ran). */
  closeDb(): void;
}

export function assembleStore(p: StoreParts): Store {
  const { db, path, now } = p;
  let closed = false;
  const closing = new Set<() => void>();
  let commit: ((b: WriterBatch) => number) | undefined;
  // pg_notify runs on the store's connection, so inside a transaction it is sent on commit only.
  // SQLite has no other process to tell: a fleet is PostgreSQL's alone (docs/fleet.md).
  let notifyStmt: { get(...a: unknown[]): unknown } | undefined;
  const notify =
    db.dialect === 'postgres'
      ? (channel: string, payload: string) =>
          void (notifyStmt ??= db.prepare('SELECT pg_notify(?, ?)')).get(channel, payload)
      : () => undefined;
  const store: Store = {
    path,
    home: p.home,
    version: p.version,
    readOnly: p.readOnly,
    readOnlyReason: p.readOnlyReason,
    // Guarded: a fault of the file or server surfaces as a StoreError naming it (guard.ts), whichever face asked.
    workspaces: guarded(createWorkspacesRepo(db, now), path),
    sessions: guarded(createSessionsRepo(db, now), path),
    wire: guarded(createWireLogRepo(db), path),
    entries: guarded(createEntriesRepo(db, now), path),
    turns: guarded(createTurnsRepo(db), path),
    permissions: guarded(createPermissionsRepo(db, now), path),
    defaults: guarded(createDefaultsRepo(db, now), path),
    leases: guarded(createLeasesRepo(db, now), path),
    branches: guarded(createBranchesRepo(db, now), path),
    events: guarded(createSessionEventsRepo(db), path),
    capsRefs: guarded(createCapsRefsRepo(db), path),
    fleetHosts: guarded(createFleetHostsRepo(db), path),
    presence: guarded(createSessionPresenceRepo(db), path),
    fleetTokens: guarded(createFleetTokensRepo(db), path),
    notify: guardFn(notify, path),
    checkpoint: () => p.checkpoint(),
    transaction: guardFn((fn: () => unknown) => db.transaction(fn).immediate(), path) as Store['transaction'],
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
          p.logger?.error('store: a writer failed while the store closed', { error: String(err) });
        }
      }
      closing.clear();
      closed = true;
      p.closeDb();
    },
  };
  return store;
}
