/**
 * Stored sessions: Talaria's id ↔ the agent's session id, with provider, profile, cwd, title.
 * Archive is Talaria-side (Hermes has no delete): archived sessions leave the default listings,
 * nothing is destroyed.
 */
import { randomUUID } from 'node:crypto';
import { ciLike, NO_LIMIT, type SqlDb } from './sql.js';
import { fromJson, toJson } from './json.js';
import { definedOnly } from './workspaces.js';

export interface StoredSession {
  /** Talaria's id. */
  id: string;
  /** The agent's ACP sessionId, once known. */
  agentSessionId?: string;
  provider: string;
  profile?: string;
  workspaceId?: string;
  cwd: string;
  title?: string;
  archived: boolean;
  createdAt: number;
  updatedAt: number;
  lastActiveAt?: number;
  /** Whatever the caller keeps about the agent (initialize's agentInfo, capabilities…). */
  agentInfo?: unknown;
  /** The model a person chose for it (re-applied when it is reopened). */
  modelId?: string;
  /** The agent mode a person chose for it. */
  modeId?: string;
}

export interface NewSession {
  /** Defaults to a random UUID. */
  id?: string;
  agentSessionId?: string;
  provider: string;
  profile?: string;
  workspaceId?: string;
  cwd: string;
  title?: string;
  agentInfo?: unknown;
  /** Defaults to now (imports keep the recorded time). */
  createdAt?: number;
}

/** `undefined` leaves a field alone; `null` clears an optional one. */
export interface SessionPatch {
  agentSessionId?: string | null;
  profile?: string | null;
  workspaceId?: string | null;
  title?: string | null;
  agentInfo?: unknown;
}

export interface SessionFilter {
  workspaceId?: string;
  provider?: string;
  cwd?: string;
  /** Case-insensitive substring of the title. */
  search?: string;
  /** Default false: archived sessions are hidden. */
  includeArchived?: boolean;
  /** Only archived sessions. */
  archivedOnly?: boolean;
  limit?: number;
  offset?: number;
}

interface Row {
  id: string;
  agent_session_id: string | null;
  provider: string;
  profile: string | null;
  workspace_id: string | null;
  cwd: string;
  title: string | null;
  archived: number;
  created_at: number;
  updated_at: number;
  last_active_at: number | null;
  agent_info: string | null;
  model_id: string | null;
  mode_id: string | null;
}

function toSession(r: Row): StoredSession {
  const s: StoredSession = {
    id: r.id,
    provider: r.provider,
    cwd: r.cwd,
    archived: r.archived !== 0,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
  if (r.agent_session_id !== null) s.agentSessionId = r.agent_session_id;
  if (r.profile !== null) s.profile = r.profile;
  if (r.workspace_id !== null) s.workspaceId = r.workspace_id;
  if (r.title !== null) s.title = r.title;
  if (r.last_active_at !== null) s.lastActiveAt = r.last_active_at;
  const info = fromJson(r.agent_info);
  if (info !== undefined) s.agentInfo = info;
  if (r.model_id !== null) s.modelId = r.model_id;
  if (r.mode_id !== null) s.modeId = r.mode_id;
  return s;
}

/** Escapes LIKE wildcards so a search for "50%" means the characters. */
const likeEscaped = (s: string): string => s.replace(/[\\%_]/g, (c) => '\\' + c);
const likePattern = (s: string): string => '%' + likeEscaped(s) + '%';

export type SessionsRepo = ReturnType<typeof createSessionsRepo>;

export function createSessionsRepo(db: SqlDb, now: () => number = Date.now) {
  const byId = db.prepare<[string], Row>('SELECT * FROM sessions WHERE id = ?');
  const byAgent = db.prepare<[string, string], Row>(
    'SELECT * FROM sessions WHERE provider = ? AND agent_session_id = ? ORDER BY created_at DESC LIMIT 1',
  );
  const byAgentAny = db.prepare<[string], Row>(
    'SELECT * FROM sessions WHERE agent_session_id = ? ORDER BY created_at DESC LIMIT 1',
  );
  const idsByPrefix = db.prepare<[string, string, number], { id: string }>(
    `SELECT DISTINCT id FROM sessions WHERE id ${ciLike(db)} ? ESCAPE '\\' OR agent_session_id ${ciLike(db)} ? ESCAPE '\\' LIMIT ?`,
  );
  const insert = db.prepare(
    `INSERT INTO sessions (id, agent_session_id, provider, profile, workspace_id, cwd, title, archived,
       created_at, updated_at, last_active_at, agent_info)
     VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, NULL, ?)`,
  );
  const update = db.prepare(
    `UPDATE sessions SET agent_session_id = ?, profile = ?, workspace_id = ?, title = ?, agent_info = ?,
       updated_at = ? WHERE id = ?`,
  );
  const setArchived = db.prepare('UPDATE sessions SET archived = ?, updated_at = ? WHERE id = ?');
  const touch = db.prepare('UPDATE sessions SET last_active_at = ?, updated_at = ? WHERE id = ?');
  const setTitle = db.prepare('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?');
  const setModel = db.prepare('UPDATE sessions SET model_id = ?, updated_at = ? WHERE id = ?');
  const setMode = db.prepare('UPDATE sessions SET mode_id = ?, updated_at = ? WHERE id = ?');
  // Change listeners (the caps face's session facts): told the id of each row written, so nothing polls.
  const listeners = new Set<(id: string) => void>();
  const changed = (id: string, did: boolean): boolean => {
    if (did)
      for (const fn of listeners) {
        try {
          fn(id);
        } catch {
          // A listener's fault is its own: the write has happened and its caller must not see it fail.
        }
      }
    return did;
  };

  const lastInfo = db.prepare<[string], { agent_info: string }>(
    'SELECT agent_info FROM sessions WHERE provider = ? AND agent_info IS NOT NULL ORDER BY updated_at DESC LIMIT 1',
  );
  const repo = {
    create(input: NewSession): StoredSession {
      const t = input.createdAt ?? now();
      const id = input.id ?? randomUUID();
      insert.run(
        id,
        input.agentSessionId ?? null,
        input.provider,
        input.profile ?? null,
        input.workspaceId ?? null,
        input.cwd,
        input.title ?? null,
        t,
        t,
        toJson(input.agentInfo),
      );
      changed(id, true);
      return repo.get(id)!;
    },
    get(id: string): StoredSession | undefined {
      const r = byId.get(id);
      return r ? toSession(r) : undefined;
    },
    /** What the newest session of this agent with one stored says about the agent (initialize's agentInfo…). */
    lastAgentInfo(provider: string): unknown {
      const r = lastInfo.get(provider);
      return r ? fromJson(r.agent_info) : undefined;
    },
    /** The newest stored session for an agent's session id (to merge with the agent's session/list). */
    findByAgentId(provider: string, agentSessionId: string): StoredSession | undefined {
      const r = byAgent.get(provider, agentSessionId);
      return r ? toSession(r) : undefined;
    },
    /** The newest stored session for an agent's session id, whichever agent it is. */
    findByAgentSessionId(agentSessionId: string): StoredSession | undefined {
      const r = byAgentAny.get(agentSessionId);
      return r ? toSession(r) : undefined;
    },
    /** Ids of up to `limit` sessions whose Talaria id or agent session id starts with `prefix`. */
    idsWithPrefix(prefix: string, limit: number): string[] {
      const p = likeEscaped(prefix) + '%';
      return idsByPrefix.all(p, p, limit).map((r) => r.id);
    },
    /** Most recently active first. Archived sessions are hidden unless asked for. */
    list(filter: SessionFilter = {}): StoredSession[] {
      const where: string[] = [];
      const args: (string | number)[] = [];
      if (filter.archivedOnly) where.push('archived = 1');
      else if (!filter.includeArchived) where.push('archived = 0');
      const eq = (column: string, value: string | undefined) => {
        if (value === undefined) return;
        where.push(`${column} = ?`);
        args.push(value);
      };
      eq('workspace_id', filter.workspaceId);
      eq('provider', filter.provider);
      eq('cwd', filter.cwd);
      if (filter.search !== undefined && filter.search !== '') {
        where.push(`title ${ciLike(db)} ? ESCAPE '\\'`);
        args.push(likePattern(filter.search));
      }
      let sql = 'SELECT * FROM sessions';
      if (where.length > 0) sql += ' WHERE ' + where.join(' AND ');
      sql += ' ORDER BY COALESCE(last_active_at, created_at) DESC, created_at DESC, id';
      if (filter.limit !== undefined) {
        sql += ' LIMIT ?';
        args.push(Math.max(0, Math.floor(filter.limit)));
      }
      if (filter.offset !== undefined) {
        if (filter.limit === undefined) sql += ` LIMIT ${NO_LIMIT}`;
        sql += ' OFFSET ?';
        args.push(Math.max(0, Math.floor(filter.offset)));
      }
      return db
        .prepare<(string | number)[], Row>(sql)
        .all(...args)
        .map(toSession);
    },
    update(id: string, patch: SessionPatch): StoredSession | undefined {
      const cur = repo.get(id);
      if (!cur) return undefined;
      const next = { ...cur, ...definedOnly(patch) } as StoredSession & SessionPatch;
      update.run(
        next.agentSessionId ?? null,
        next.profile ?? null,
        next.workspaceId ?? null,
        next.title ?? null,
        next.agentInfo === null ? null : toJson(next.agentInfo),
        now(),
        id,
      );
      changed(id, true);
      return repo.get(id);
    },
    /** Agent-provided titles arrive often; a cheap single-column write. */
    setTitle(id: string, title: string | null, at = now()): boolean {
      return changed(id, setTitle.run(title, at, id).changes > 0);
    },
    /** Records the model or mode a person chose for the session. */
    setChoice(id: string, kind: 'model' | 'mode', value: string | null): boolean {
      return changed(id, (kind === 'model' ? setModel : setMode).run(value, now(), id).changes > 0);
    },
    /** Marks activity (a turn started or ended). */
    touch(id: string, at = now()): boolean {
      return changed(id, touch.run(at, at, id).changes > 0);
    },
    /** Hides the session from default listings. Returns false when the id is unknown. */
    archive(id: string): boolean {
      return changed(id, setArchived.run(1, now(), id).changes > 0);
    },
    /** Calls `fn` with the id of each session row this store writes (created, updated, archived…); returns the unsubscribe. */
    onChange(fn: (id: string) => void): () => void {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    unarchive(id: string): boolean {
      return changed(id, setArchived.run(0, now(), id).changes > 0);
    },
  };
  return repo;
}
