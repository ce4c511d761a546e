/**
 * The store: one SQLite file under Talaria's home with sessions, their wire logs, threads, turns,
 * permission rules, the audit log and writer leases. Plain JSON in and out: it imports protocol and
 * thread types only (the recorder that fills it lives in the harness).
 */
import { openDatabase, type Db, type OpenDbOptions } from './db.js';
import { createBranchesRepo, type BranchesRepo } from './branches.js';
import { createCapsRefsRepo, type CapsRefsRepo } from './caps-refs.js';
import { createDefaultsRepo, type DefaultsRepo } from './defaults.js';
import { createEntriesRepo, type EntriesRepo } from './entries.js';
import { createLeasesRepo, type LeasesRepo } from './leases.js';
import { createPermissionsRepo, type PermissionsRepo } from './permissions.js';
import { createSessionEventsRepo, type SessionEventsRepo } from './session-events.js';
import { createSessionsRepo, type SessionsRepo } from './sessions.js';
import { createTurnsRepo, type TurnsRepo } from './turns.js';
import { createWireLogRepo, type WireLogRepo } from './wire-log.js';
import { createWorkspacesRepo, type WorkspacesRepo } from './workspaces.js';
import { guarded, guardFn } from './guard.js';

export interface StoreOptions extends OpenDbOptions {
  /** Clock for created/updated stamps (tests). */
  now?: () => number;
}

export interface Store {
  readonly db: Db;
  /** The database file (or `:memory:`). */
  readonly path: string;
  /** The home directory, when the store was opened by home. */
  readonly home: string | undefined;
  /** Schema version. */
  readonly version: number;
  /** Nothing can be written (asked for with `readOnly`, or the file is not writable); reads work. */
  readonly readOnly: boolean;
  /** Why it is read-only, for a face to tell the user. */
  readonly readOnlyReason: string | undefined;
  readonly workspaces: WorkspacesRepo;
  readonly sessions: SessionsRepo;
  readonly wire: WireLogRepo;
  readonly entries: EntriesRepo;
  readonly turns: TurnsRepo;
  readonly permissions: PermissionsRepo;
  /** Per workspace and agent: the model and mode new sessions start with. */
  readonly defaults: DefaultsRepo;
  readonly leases: LeasesRepo;
  /** Branches of conversations: new agent sessions (overflow), rewinds, continuations with another agent. */
  readonly branches: BranchesRepo;
  /** Each session's event stream as `talaria serve` sends it (the server's event log). */
  readonly events: SessionEventsRepo;
  /** The caps face's references and this home's host key. */
  readonly capsRefs: CapsRefsRepo;
  /** Moves what was committed into the main file without waiting for anyone (the recorder, when idle). */
  checkpoint(): void;
  /** Runs `fn` in one transaction (nested calls become savepoints). */
  transaction<T>(fn: () => T): T;
  readonly closed: boolean;
  /** Runs `fn` just before the database closes (writers flush there). Returns an unregister function. */
  beforeClose(fn: () => void): () => void;
  /** Runs the beforeClose callbacks, then closes the database. Idempotent. */
  close(): void;
}

export function openStore(opts: StoreOptions = {}): Store {
  const opened = openDatabase(opts);
  const { db } = opened;
  const now = opts.now ?? Date.now;
  let closed = false;
  const closing = new Set<() => void>();
  const store: Store = {
    db,
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
  return store;
}

export { openDatabase, migrate, DB_FILE, type Db, type OpenDbOptions, type OpenedDb } from './db.js';
export { StoreError, storeErrorFrom, asStoreError, type StoreErrorCode } from './errors.js';
export { MIGRATIONS, type Migration } from './migrations/index.js';
export {
  exportSessionJson,
  exportSessionMarkdown,
  exportSessionFixture,
  importFixture,
  type SessionExport,
  type ImportOptions,
  type MarkdownRenderer,
} from './export.js';
export { parseFixture, type FixtureProblem } from './json.js';
export type { Workspace, WorkspaceInput, WorkspacePatch, WorkspacesRepo } from './workspaces.js';
export type { StoredSession, NewSession, SessionPatch, SessionFilter, SessionsRepo } from './sessions.js';
export type { AgentDefaults, DefaultsRepo } from './defaults.js';
export type { WireRow, WireReadOptions, WireLogRepo } from './wire-log.js';
export type { ThreadMeta, IndexedEntry, EntriesRepo } from './entries.js';
export type { StoredTurn, TurnStart, TurnEnd, TurnsRepo, UsageTotals } from './turns.js';
export type {
  RuleScope,
  RuleJson,
  StoredRule,
  NewRule,
  AuditInput,
  AuditRecord,
  PermissionsRepo,
} from './permissions.js';
export type { Lease, LeaseHolder, LeasesRepo } from './leases.js';
export type { Branch, BranchReason, BranchesRepo, NewBranch } from './branches.js';
export type { StoredEvent, EventsHead, SessionEventsRepo } from './session-events.js';
export type { StoredRef, RefChain, CapsRefsRepo } from './caps-refs.js';
