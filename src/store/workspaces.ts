/**
 * Workspaces: a directory a person works in, with its default provider and profile. A path on one
 * host (docs/fleet.md §2): a fleet member's store is told its host (`useHost`) and finds, makes
 * and lists that host's rows; `get(id)` reads any (another host's session names its workspace).
 */
import { randomUUID } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { StoreError } from './errors.js';
import type { SqlDb } from './sql.js';

export interface Workspace {
  id: string;
  /** Absolute path, unique on its host. */
  path: string;
  /** The fleet host it is on; absent on a single host's store (and for rows from before the fleet). */
  hostId?: string;
  name: string;
  defaultProvider?: string;
  profile?: string;
  /** Hermes runs here in a profile of its own (created on the first Hermes session). */
  ownProfile?: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface WorkspaceInput {
  path: string;
  name?: string;
  defaultProvider?: string;
  profile?: string;
}

/** `undefined` leaves a field alone; `null` clears an optional one. */
export interface WorkspacePatch {
  name?: string;
  defaultProvider?: string | null;
  profile?: string | null;
  ownProfile?: boolean;
}

interface Row {
  id: string;
  path: string;
  name: string;
  default_provider: string | null;
  profile: string | null;
  own_profile: number;
  host_id: string;
  created_at: number;
  updated_at: number;
}

function toWorkspace(r: Row): Workspace {
  const w: Workspace = { id: r.id, path: r.path, name: r.name, createdAt: r.created_at, updatedAt: r.updated_at };
  if (r.default_provider !== null) w.defaultProvider = r.default_provider;
  if (r.profile !== null) w.profile = r.profile;
  if (r.own_profile) w.ownProfile = true;
  if (r.host_id !== '') w.hostId = r.host_id;
  return w;
}

export type WorkspacesRepo = ReturnType<typeof createWorkspacesRepo>;

/** '' is no host: a single host's store, and rows made before the fleet (migration 014). */
const NO_HOST = '';

export function createWorkspacesRepo(db: SqlDb, now: () => number = Date.now) {
  let host = NO_HOST;
  const byId = db.prepare<[string], Row>('SELECT * FROM workspaces WHERE id = ?');
  // This host's row first, else the one from before the fleet.
  const byPath = db.prepare<[string, string, string], Row>(
    `SELECT * FROM workspaces WHERE path = ? AND host_id IN (?, ?)
     ORDER BY CASE host_id WHEN '' THEN 1 ELSE 0 END LIMIT 1`,
  );
  const all = db.prepare<[string, string], Row>(
    'SELECT * FROM workspaces WHERE host_id IN (?, ?) ORDER BY updated_at DESC, name',
  );
  const claim = db.prepare<[string, string]>("UPDATE workspaces SET host_id = ? WHERE id = ? AND host_id = ''");
  // No conflict target: the one unique key besides the id is (host_id, path).
  const insert = db.prepare(
    `INSERT INTO workspaces (id, path, name, default_provider, profile, created_at, updated_at, host_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  const update = db.prepare(
    'UPDATE workspaces SET name = ?, default_provider = ?, profile = ?, own_profile = ?, updated_at = ? WHERE id = ?',
  );

  const repo = {
    /** The fleet host this store works for; '' when none (a method: guarded() copies values once). */
    host(): string {
      return host;
    },
    /** Set once, by the harness on a fleet's store (its host.json), before any workspace is opened. */
    useHost(hostId: string): void {
      if (hostId === NO_HOST || (host !== NO_HOST && host !== hostId))
        throw new StoreError('invalid_argument', `workspaces cannot move from host '${host}' to '${hostId}'`);
      host = hostId;
    },
    get(id: string): Workspace | undefined {
      const r = byId.get(id);
      return r ? toWorkspace(r) : undefined;
    },
    /** This host's workspace at `path` (or, unclaimed yet, the one from before the fleet). */
    getByPath(path: string): Workspace | undefined {
      const r = byPath.get(resolve(path), host, NO_HOST);
      return r ? toWorkspace(r) : undefined;
    },
    /** This host's workspaces and those from before the fleet nobody claimed yet. */
    list(): Workspace[] {
      return all.all(host, NO_HOST).map(toWorkspace);
    },
    /**
     * The workspace for `path` on this host, created on first use (the host and path are the
     * identity). A fleet member claims a row from before the fleet on first use: a store joins a
     * fleet from the one machine that used it, so the row is most likely its own, and claiming
     * keeps the sessions, defaults and rules already attached to it. The other hosts then make
     * their own row for the same path.
     */
    ensure(input: WorkspaceInput): Workspace {
      const path = resolve(input.path);
      const found = repo.getByPath(path);
      if (found && (found.hostId ?? NO_HOST) === host) return found;
      // Another host may claim it first (only one UPDATE sees host_id = ''): it then makes its own.
      if (found && claim.run(host, found.id).changes === 1) return repo.get(found.id)!;
      const t = now();
      // Another process may create the same path between the read and the write (two `talaria run`s
      // starting in one folder): the insert then does nothing and the row it made is the answer.
      insert.run(
        randomUUID(),
        path,
        input.name ?? (basename(path) || path),
        input.defaultProvider ?? null,
        input.profile ?? null,
        t,
        t,
        host,
      );
      return repo.getByPath(path)!;
    },
    /** Applies a patch. Returns the updated row, or undefined when unknown. */
    update(id: string, patch: WorkspacePatch): Workspace | undefined {
      const cur = repo.get(id);
      if (!cur) return undefined;
      const next = { ...cur, ...definedOnly(patch) };
      update.run(next.name, next.defaultProvider ?? null, next.profile ?? null, next.ownProfile ? 1 : 0, now(), id);
      return repo.get(id);
    },
  };
  return repo;
}

/** Drops undefined values so a spread patch cannot erase fields by accident. */
export function definedOnly<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
