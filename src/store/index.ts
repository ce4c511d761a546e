/**
 * The store's door: one SQLite file under Talaria's home with sessions, their wire logs, threads,
 * turns, permission rules, the audit log, writer leases, the server's event log and the caps
 * references — or the same on a PostgreSQL server (`openStore({ url: 'postgres://…' })`). Plain
 * JSON in and out through repositories: it imports protocol and thread types only (the recorder
 * that fills it lives in the harness). No database handle goes out of here.
 */
export { openStore, type StoreOptions } from './sqlite.js';
export { isPgUrl } from './pg/url.js';
export type { Store } from './types.js';
export { DB_FILE, type OpenDbOptions } from './db.js';
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
export type { FleetHostRow, FleetHostsRepo } from './fleet-hosts.js';
export type { FleetTokenRow, FleetTokensRepo } from './fleet-tokens.js';
export type { PresenceStatus, SessionPresenceRow, SessionPresenceRepo } from './session-presence.js';
