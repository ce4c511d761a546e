/**
 * The store as the rest of Talaria sees it: repositories, and no database handle. The SQLite
 * implementation is store/sqlite.ts, PostgreSQL's store/pg/store-pg.ts (issue 39): the same
 * repositories over one SQL port (sql.ts).
 */
import type { BranchesRepo } from './branches.js';
import type { CapsRefsRepo } from './caps-refs.js';
import type { DefaultsRepo } from './defaults.js';
import type { EntriesRepo } from './entries.js';
import type { FleetHostsRepo } from './fleet-hosts.js';
import type { LeasesRepo } from './leases.js';
import type { PermissionsRepo } from './permissions.js';
import type { SessionEventsRepo } from './session-events.js';
import type { SessionPresenceRepo } from './session-presence.js';
import type { FleetTokensRepo } from './fleet-tokens.js';
import type { SessionsRepo } from './sessions.js';
import type { TurnsRepo } from './turns.js';
import type { WireLogRepo } from './wire-log.js';
import type { WorkspacesRepo } from './workspaces.js';
import type { WriterBatch } from './writer-batch.js';

export interface Store {
  /** Where the store is, for messages and the writer thread (the database file, `:memory:`, or a PostgreSQL server's address without its password). */
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
  /** The hosts of a fleet sharing this store (PostgreSQL; empty on a single host's). */
  readonly fleetHosts: FleetHostsRepo;
  /** Live status of sessions, written by the host that runs them. */
  readonly presence: SessionPresenceRepo;
  /** A fleet's join tokens, by hash (docs/fleet.md §5). */
  readonly fleetTokens: FleetTokensRepo;
  /**
   * Tells the other hosts listening on `channel` (PostgreSQL's NOTIFY; inside a transaction it is
   * delivered on commit only). Does nothing on SQLite, which no other host shares.
   */
  notify(channel: string, payload: string): void;
  /**
   * Runs `fn` in one transaction (nested calls become savepoints). Kept on the interface rather
   * than a named method per multi-table write: `fn` only calls the repositories above, synchronously,
   * so it holds no SQL and any backend with synchronous repositories can run it as a unit of work.
   */
  transaction<T>(fn: () => T): T;
  /** Commits one batch of a session's recording (frames, entries, turns, audits) in one transaction; its last seq. */
  commitBatch(b: WriterBatch): number;
  /** Moves what was committed into the main file without waiting for anyone (the recorder, when idle). */
  checkpoint(): void;
  readonly closed: boolean;
  /** Runs `fn` just before the store closes (writers flush there). Returns an unregister function. */
  beforeClose(fn: () => void): () => void;
  /** Runs the beforeClose callbacks, then closes the store. Idempotent. */
  close(): void;
}
