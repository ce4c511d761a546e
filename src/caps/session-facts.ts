/**
 * Facts about this host's sessions, one per stored session — live or not, archived included — so
 * the dataspace is the merged session list (`/api/sessions?archived=include`: the store, with the
 * state of the sessions open here). Kept true without polling: the store tells which row it wrote
 * (sessions.onChange), a live session's events tell its state, model, mode and title; a change is
 * a retract + assert so observers see it; a row that is gone is retracted. Owner `host`; each
 * fact names this host's key so a client watching several hosts can tell them apart.
 *
 * `status`: the live session's state (`idle`, `running`, …) while it is open here, else
 * `archived` or `stored`. `model` / `mode`: the live catalog's current ones, else the ones chosen
 * for the session (empty when none). Writes by other processes to the same store are not seen
 * until this process writes that row.
 */
import type { StoredSession } from '../store/index.js';
import type { Logger } from '../protocol/types.js';
import { passable } from './clone.js';
import type { Dataspace } from './dataspace.js';
import type { LiveSession, LiveSessions } from './live.js';
import type { Harness } from '../harness/index.js';

export type SessionFact = {
  type: 'session';
  host: string;
  id: string;
  provider: string;
  status: string;
  archived: boolean;
  model: string;
  mode: string;
  cwd: string;
  title: string;
};

/** The fact of a stored session, with its live session when it is open here. */
export function sessionFact(hostKey: string, row: StoredSession, ls?: LiveSession): SessionFact {
  const live = ls && ls.hs.state !== 'closed' ? ls : undefined;
  return {
    type: 'session',
    host: hostKey,
    id: row.id,
    provider: row.provider,
    status: live ? live.hs.state : row.archived ? 'archived' : 'stored',
    archived: row.archived,
    model: (live ? live.hs.catalog.model?.currentId : row.modelId) ?? '',
    mode: (live ? live.hs.catalog.mode?.currentId : row.modeId) ?? '',
    cwd: row.cwd,
    title: row.title ?? '',
  };
}

const LIVE_CHANGES = new Set(['session.state', 'catalog.updated', 'info.updated', 'config.updated', 'session.closed']);

export function publishSessions(host: {
  harness: Harness;
  live: LiveSessions;
  dataspace: Dataspace;
  refs: { hostKey: string };
  logger: Logger;
}): () => void {
  const held = new Map<string, { handle: string; json: string }>();
  const refresh = (id: string, closing = false): void => {
    try {
      const row = host.harness.sessions.get(id);
      const have = held.get(id);
      if (!row) {
        if (have) host.dataspace.retract('host', have.handle);
        held.delete(id);
        return;
      }
      const f = sessionFact(host.refs.hostKey, row, closing ? undefined : host.live.get(id));
      const json = JSON.stringify(f);
      if (have?.json === json) return;
      if (have) host.dataspace.retract('host', have.handle);
      held.set(id, { handle: host.dataspace.assert('host', passable(f)), json });
    } catch (err) {
      host.logger.warn('caps: a session fact could not be updated', {
        sessionId: id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  };
  const offs: (() => void)[] = [];
  const track = (ls: LiveSession): void => {
    refresh(ls.hs.id);
    const off = ls.hs.subscribe((e) => {
      if (!LIVE_CHANGES.has(e.type)) return;
      const closing = e.type === 'session.closed';
      refresh(ls.hs.id, closing);
      if (closing) off();
    });
    offs.push(off);
  };
  for (const row of host.harness.sessions.list({ includeArchived: true })) refresh(row.id);
  offs.push(host.harness.sessions.onChange((id) => refresh(id)));
  for (const ls of host.live.all()) track(ls);
  offs.push(host.live.onAdded(track));
  return () => {
    offs.splice(0).forEach((f) => f());
    for (const h of held.values()) host.dataspace.retract('host', h.handle);
    held.clear();
  };
}
