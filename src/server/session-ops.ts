/**
 * What the session, run and workspace routes share: a live session opened once however many ask
 * (SessionOps), a new session in a folder, the checks on a folder a client names.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { liveRegistry, type Harness, type HarnessSession, type Workspace } from '../harness/index.js';
import type { StoredSession, Workspace as WorkspaceRow } from '../store/index.js';
import type { WorkspaceInfo } from './contract/index.js';
import type { Hub, LiveSession } from './hub.js';
import { HttpError } from './http-error.js';
import { workspaceProfileName } from '../providers/hermes/profile-create.js';

export function existingDir(path: string, what: string): string {
  if (!isAbsolute(path)) throw new HttpError('invalid_argument', `${what} must be an absolute path: ${path}`);
  let dir = false;
  try {
    dir = statSync(path).isDirectory();
  } catch {
    dir = false;
  }
  if (!dir) throw new HttpError('invalid_argument', `${what} is not an existing directory: ${path}`);
  return path;
}

export function workspaceInfo(w: WorkspaceRow): WorkspaceInfo {
  return {
    id: w.id,
    path: w.path,
    name: w.name,
    ...(w.defaultProvider ? { provider: w.defaultProvider } : {}),
    ...(w.profile ? { profile: w.profile } : {}),
    ...(w.ownProfile ? { ownProfile: workspaceProfileName(w.path) } : {}),
    ...(existsSync(w.path) ? {} : { missing: true }),
  };
}

export interface NewSessionBody {
  provider?: string;
  profile?: string;
  permissionMode?: string;
  mcpServers?: unknown[];
}

/** The new session's creator, when it is a one-shot run (`POST /api/run`): the list marks it. */
type CreatedBy = { createdBy?: 'run' };

/** A new session in the workspace at `path` (createSession's and run's). */
export async function newSessionAt(
  harness: Harness,
  path: string,
  b: NewSessionBody & CreatedBy,
): Promise<HarnessSession> {
  if (b.provider && !harness.registry.has(b.provider))
    throw new HttpError('invalid_argument', `no agent "${b.provider}"`, 'GET /api/providers lists them.');
  return harness.workspaces.open(path).newSession({
    ...(b.provider ? { provider: b.provider } : {}),
    ...(b.profile ? { profile: b.profile } : {}),
    ...(b.permissionMode ? { permissionMode: b.permissionMode as never } : {}),
    ...(b.mcpServers ? { mcpServers: b.mcpServers } : {}),
    ...(b.createdBy ? { createdBy: b.createdBy } : {}),
  });
}

/** The agent whose own sessions a workspace lists and adopts: its binding, else the configured default. */
export function agentOf(harness: Harness, w: WorkspaceRow): { provider: string; profile?: string } | undefined {
  const c = harness.config.defaultProvider;
  const d = w.defaultProvider ?? (c && harness.registry.has(c) ? c : undefined);
  if (!d) return undefined;
  // The profile new sessions here use (an own profile not made yet has no sessions to list).
  const set = harness.profileFor(w.id, d);
  return { provider: d, ...(set && !(set.own && !set.exists) ? { profile: set.profile } : {}) };
}

export class SessionOps {
  private readonly opening = new Map<string, Promise<LiveSession>>();
  /** Titles the agents' own lists gave their sessions: an adopted one keeps its name (a replay carries none). */
  readonly agentTitles = new Map<string, string>();
  constructor(
    private readonly harness: Harness,
    private readonly hub: Hub,
  ) {}

  row(id: string): StoredSession {
    const row = this.harness.sessions.find(id);
    if (!row) throw new HttpError('not_found', `no session ${id}`);
    return row;
  }

  workspaceOf(row: StoredSession): Workspace {
    const w = row.workspaceId ? this.harness.workspaces.get(row.workspaceId) : undefined;
    return this.harness.workspaces.open(w?.path ?? row.cwd);
  }

  /** The live session, opened at its agent first when it is not (load, resume or the stored thread). */
  async live(id: string, o: { provider?: string; profile?: string } = {}): Promise<LiveSession> {
    const row = this.row(id);
    const cur = this.hub.get(row.id);
    if (cur && cur.hs.session.state !== 'closed' && cur.hs.session.state !== 'failed') return cur;
    let p = this.opening.get(row.id);
    if (!p) {
      p = (async () => {
        // Through the harness's live registry: a session another face (caps) has open is reused, not opened again.
        const hs = await liveRegistry(this.harness).open(row.id, o);
        const cur = this.hub.get(hs.id);
        return cur?.hs === hs ? cur : this.hub.attach(hs);
      })();
      this.opening.set(row.id, p);
      p.finally(() => this.opening.delete(row.id)).catch(() => undefined);
    }
    return p;
  }

  /**
   * A session only the agent lists (`agent=true`, `stored: false`): the agent gives it back
   * (session/load, its history replayed; else session/resume, nothing replayed; else 409 with a
   * fix) and Talaria stores it from then on, under the workspace
   * whose list showed it. The agent's session id is the id the list gave.
   */
  async adopt(id: string, o: { workspace?: string; provider?: string; profile?: string }): Promise<LiveSession> {
    const w = o.workspace ? this.harness.workspaces.get(o.workspace) : undefined;
    if (!w) {
      if (o.workspace) throw new HttpError('not_found', `no workspace ${o.workspace}`);
      throw new HttpError(
        'not_found',
        `no session ${id}`,
        'A session only the agent lists opens with its workspace: POST /api/sessions/:id/open {"workspace": "<id>"}.',
      );
    }
    const provider = o.provider ?? agentOf(this.harness, w)?.provider;
    const profile = o.profile ?? (o.provider ? undefined : agentOf(this.harness, w)?.profile);
    if (!provider)
      throw new HttpError(
        'invalid_argument',
        `workspace ${w.id} has no agent bound`,
        'Name one: {"provider": "…"}, or bind one: PUT /api/workspaces/:id/provider.',
      );
    let p = this.opening.get(id);
    if (!p) {
      p = (async () => {
        const hs = await this.harness.workspaces
          .open(w.path)
          .openSession(id, { provider, ...(profile ? { profile } : {}) });
        const title = this.agentTitles.get(id);
        if (title && !hs.thread.title) {
          hs.session.thread.title = title;
          this.harness.sessions.update(hs.id, { title });
        }
        return this.hub.attach(hs);
      })();
      this.opening.set(id, p);
      p.finally(() => this.opening.delete(id)).catch(() => undefined);
    }
    return p;
  }

  attach(hs: HarnessSession): LiveSession {
    return this.hub.attach(hs);
  }
}
