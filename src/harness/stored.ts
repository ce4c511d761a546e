/**
 * What the faces read and write of the store through the harness: workspace rows, stored sessions
 * (their thread, turns, wire log) and permission rules. Each is one repository call, typed by the
 * repository (no second API to keep in step); the store itself stays the harness's.
 */
import type {
  EntriesRepo,
  PermissionsRepo,
  RuleJson,
  SessionsRepo,
  Store,
  StoredRule,
  TurnsRepo,
  WireLogRepo,
  WorkspacesRepo,
} from '../store/index.js';

export interface StoredWorkspaces {
  /** A workspace the store knows, by id. */
  get: WorkspacesRepo['get'];
  /** A workspace the store knows, by path (never adds one: open() does). */
  find: WorkspacesRepo['getByPath'];
  /** Changes its row (name, bound agent, profile); undefined when the id is unknown. */
  update: WorkspacesRepo['update'];
  /** Its row, added when new, without opening the workspace (open() would warm its agent). */
  ensure: WorkspacesRepo['ensure'];
}

export interface StoredSessions {
  /** By Talaria id exactly (find() also takes a prefix or an agent's id). */
  get: SessionsRepo['get'];
  update: SessionsRepo['update'];
  /** Calls `fn` with the id of each stored session written (created, renamed, archived…); returns the unsubscribe. */
  onChange: SessionsRepo['onChange'];
  /** The stored thread, when one was stored. */
  snapshot: EntriesRepo['loadSnapshot'];
  /** The stored thread without its entries (plan, commands, context, the agent's provenance). */
  meta: EntriesRepo['getMeta'];
  /** The stored thread's entries, with their positions. */
  entries: EntriesRepo['list'];
  turns: TurnsRepo['list'];
  usage: TurnsRepo['usage'];
  /** The stored wire log, read lazily. */
  wire: WireLogRepo['iterate'];
  /** The stored wire log, read at once. */
  wireRows: WireLogRepo['rows'];
}

export interface PermissionRules {
  /** Stored rules, of one scope (and scope id) when given. */
  list: PermissionsRepo['listRules'];
  add: PermissionsRepo['addRule'];
  /** Rule `id` replaced by `rule` in the same scope, in one write; undefined when there is no such rule. */
  replace(id: number, rule: RuleJson): StoredRule | undefined;
  /** False when there is no such rule. */
  remove: PermissionsRepo['removeRule'];
  /** The audit log of permission decisions (one session's, when given). */
  audit: PermissionsRepo['listAudit'];
}

export function storedRecords(store: Store): {
  workspaces: StoredWorkspaces;
  sessions: StoredSessions;
  permissions: PermissionRules;
} {
  const { workspaces: w, sessions: s, entries, turns, wire, permissions: p } = store;
  return {
    workspaces: {
      get: (id) => w.get(id),
      find: (path) => w.getByPath(path),
      update: (id, patch) => w.update(id, patch),
      ensure: (o) => w.ensure(o),
    },
    sessions: {
      get: (id) => s.get(id),
      update: (id, patch) => s.update(id, patch),
      onChange: (fn) => s.onChange(fn),
      snapshot: (id) => entries.loadSnapshot(id),
      meta: (id) => entries.getMeta(id),
      entries: (id) => entries.list(id),
      turns: (id) => turns.list(id),
      usage: (id) => turns.usage(id),
      wire: (id, o) => wire.iterate(id, o),
      wireRows: (id, o) => wire.rows(id, o),
    },
    permissions: {
      list: (scope, scopeId) => p.listRules(scope, scopeId),
      add: (input) => p.addRule(input),
      replace: (id, rule) => {
        const cur = p.listRules().find((r) => r.id === id);
        if (!cur) return undefined;
        return store.transaction(() => {
          p.removeRule(id);
          return p.addRule({ scope: cur.scope, ...(cur.scopeId ? { scopeId: cur.scopeId } : {}), rule });
        });
      },
      remove: (id) => p.removeRule(id),
      audit: (sessionId) => p.listAudit(sessionId),
    },
  };
}
