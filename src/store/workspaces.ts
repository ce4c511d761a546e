/** Workspaces: a directory a person works in, with its default provider and profile. */
import { randomUUID } from 'node:crypto';
import { basename, resolve } from 'node:path';
import type { SqlDb } from './sql.js';

export interface Workspace {
  id: string;
  /** Absolute path, unique. */
  path: string;
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
  created_at: number;
  updated_at: number;
}

function toWorkspace(r: Row): Workspace {
  const w: Workspace = { id: r.id, path: r.path, name: r.name, createdAt: r.created_at, updatedAt: r.updated_at };
  if (r.default_provider !== null) w.defaultProvider = r.default_provider;
  if (r.profile !== null) w.profile = r.profile;
  if (r.own_profile) w.ownProfile = true;
  return w;
}

export type WorkspacesRepo = ReturnType<typeof createWorkspacesRepo>;

export function createWorkspacesRepo(db: SqlDb, now: () => number = Date.now) {
  const byId = db.prepare<[string], Row>('SELECT * FROM workspaces WHERE id = ?');
  const byPath = db.prepare<[string], Row>('SELECT * FROM workspaces WHERE path = ?');
  const all = db.prepare<[], Row>('SELECT * FROM workspaces ORDER BY updated_at DESC, name');
  const insert = db.prepare(
    `INSERT INTO workspaces (id, path, name, default_provider, profile, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO NOTHING`,
  );
  const update = db.prepare(
    'UPDATE workspaces SET name = ?, default_provider = ?, profile = ?, own_profile = ?, updated_at = ? WHERE id = ?',
  );

  const repo = {
    get(id: string): Workspace | undefined {
      const r = byId.get(id);
      return r ? toWorkspace(r) : undefined;
    },
    getByPath(path: string): Workspace | undefined {
      const r = byPath.get(resolve(path));
      return r ? toWorkspace(r) : undefined;
    },
    list(): Workspace[] {
      return all.all().map(toWorkspace);
    },
    /** The workspace for `path`, created on first use (the path is the identity). */
    ensure(input: WorkspaceInput): Workspace {
      const path = resolve(input.path);
      const found = repo.getByPath(path);
      if (found) return found;
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
