/**
 * Opening and closing sessions on a connection: session/new, load, resume, fork, list and close,
 * each checked against the agent's capabilities, its answer checked before a Session is registered.
 * AcpClient (client.ts) owns the connection and the registry; this is what it asks the agent.
 */
import { TalariaError } from '../protocol/errors.js';
import { RequestError } from '../protocol/wire-error.js';
import type { AgentConnection } from '../protocol/connection.js';
import type { Logger } from '../protocol/types.js';
import { authRequired } from './errors.js';
import type { SessionHooks } from './hooks.js';
import type { Session } from './session.js';
import type { NewSessionOptions, SessionListing } from './client-options.js';

/** What session setup needs of its client. */
export interface SetupHost {
  readonly connection: AgentConnection;
  readonly sessions: ReadonlyMap<string, Session>;
  /** The quirk hooks of sessions opened now (read when needed: useHooks may change them). */
  hooks(): SessionHooks | undefined;
  readonly setupTimeoutMs: number | undefined;
  readonly logger: Logger;
  /** A new Session for `id`, routed from now on. */
  register(id: string, o: NewSessionOptions): Session;
  detach(s: Session): void;
}

function setupParams(o: NewSessionOptions): Record<string, unknown> {
  const p: Record<string, unknown> = { cwd: o.cwd, mcpServers: o.mcpServers ?? [] };
  if (o.additionalDirectories?.length) p.additionalDirectories = o.additionalDirectories;
  return p;
}

function reqOpts(h: SetupHost, o: { signal?: AbortSignal }) {
  return { timeoutMs: h.setupTimeoutMs ?? 120_000, ...(o.signal ? { signal: o.signal } : {}) };
}

export async function newSession(h: SetupHost, o: NewSessionOptions): Promise<Session> {
  let res: { sessionId?: unknown };
  try {
    res = await h.connection.request<{ sessionId?: unknown }>('session/new', setupParams(o), reqOpts(h, o));
  } catch (err) {
    throw authRequired(err, { authMethods: h.connection.capabilities.authMethods }) ?? err;
  }
  if (typeof res?.sessionId !== 'string' || !res.sessionId) {
    throw new TalariaError('agent_error', 'session/new answered without a sessionId', { response: res });
  }
  const s = h.register(res.sessionId, o);
  s.adoptSetup(res);
  return s;
}

/** Load a stored session: the agent replays its history into the thread before answering. */
export async function loadSession(h: SetupHost, sessionId: string, o: NewSessionOptions): Promise<Session> {
  if (!h.connection.capabilities.supportsLoad)
    throw new TalariaError('unsupported', 'this agent cannot load sessions (no loadSession capability)');
  return reopen(h, 'session/load', sessionId, o);
}

/** Resume without replay (per spec; some agents replay anyway, which then lands in the thread). */
export async function resumeSession(h: SetupHost, sessionId: string, o: NewSessionOptions): Promise<Session> {
  if (!h.connection.capabilities.supportsSession('resume'))
    throw new TalariaError('unsupported', 'this agent cannot resume sessions');
  return reopen(h, 'session/resume', sessionId, o);
}

async function reopen(
  h: SetupHost,
  method: 'session/load' | 'session/resume',
  sessionId: string,
  o: NewSessionOptions,
): Promise<Session> {
  if (h.sessions.has(sessionId))
    throw new TalariaError('invalid_state', `session ${sessionId} is already open on this connection`);
  // Register first: the replay arrives as session/update before the response.
  const s = h.register(sessionId, o);
  s.beginReplay();
  let res: unknown;
  try {
    res = await h.connection.request(method, { sessionId, ...setupParams(o) }, reqOpts(h, o));
  } catch (err) {
    h.detach(s);
    if (err instanceof RequestError && (err.code === -32002 || /not found/i.test(err.message))) {
      throw new TalariaError('session_not_found', `the agent has no session ${sessionId}`, { rpcCode: err.code });
    }
    throw err;
  } finally {
    s.endReplay();
  }
  const empty =
    res === null || res === undefined || (typeof res === 'object' && Object.keys(res as object).length === 0);
  if (method === 'session/load' && empty && s.replayCount === 0 && (h.hooks()?.loadEmptyMeansNotFound ?? false)) {
    h.detach(s);
    throw new TalariaError('session_not_found', `the agent has no session ${sessionId} (it answered {})`);
  }
  s.adoptSetup(res);
  return s;
}

/** Fork (unstable ACP): a new session with the source's history. */
export async function forkSession(h: SetupHost, sessionId: string, o: NewSessionOptions): Promise<Session> {
  if (!h.connection.capabilities.supportsSession('fork'))
    throw new TalariaError('unsupported', 'this agent cannot fork sessions');
  const res = await h.connection.request<{ sessionId?: unknown }>(
    'session/fork',
    { sessionId, ...setupParams(o) },
    reqOpts(h, o),
  );
  if (typeof res?.sessionId !== 'string' || !res.sessionId) {
    throw new TalariaError('session_not_found', `the agent could not fork ${sessionId}`, { response: res });
  }
  const s = h.register(res.sessionId, o);
  s.adoptSetup(res);
  return s;
}

/** All sessions the agent lists (follows cursors), optionally only those under `cwd`. */
export async function listSessions(
  h: SetupHost,
  o: { cwd?: string; signal?: AbortSignal; maxPages?: number },
): Promise<SessionListing[]> {
  if (!h.connection.capabilities.supportsSession('list'))
    throw new TalariaError('unsupported', 'this agent cannot list sessions');
  const out: SessionListing[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < (o.maxPages ?? 1000); page++) {
    const params: Record<string, unknown> = {};
    if (o.cwd) params.cwd = o.cwd;
    if (cursor) params.cursor = cursor;
    const res = await h.connection.request<{ sessions?: SessionListing[]; nextCursor?: string | null }>(
      'session/list',
      params,
      reqOpts(h, o),
    );
    for (const s of res?.sessions ?? []) {
      if (typeof s?.sessionId === 'string' && !seen.has(s.sessionId)) {
        seen.add(s.sessionId);
        out.push(s);
      }
    }
    const next = typeof res?.nextCursor === 'string' && res.nextCursor ? res.nextCursor : undefined;
    // A cursor that does not move would loop forever on a buggy agent.
    if (!next || next === cursor) break;
    cursor = next;
  }
  return out;
}

/** Close a session: cancel what runs, tell the agent when it supports close. */
export async function closeSession(h: SetupHost, session: Session, reason: string): Promise<void> {
  if (session.state === 'running' || session.state === 'cancelling') await session.cancel();
  if (h.connection.capabilities.supportsSession('close') && !h.connection.isClosed) {
    try {
      await h.connection.request('session/close', { sessionId: session.id }, { timeoutMs: 10_000 });
    } catch (err) {
      h.logger.warn('session/close failed', { sessionId: session.id, error: String(err) });
    }
  }
  session.markClosed(reason);
}
