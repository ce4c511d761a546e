/**
 * Facts about the sessions this host has live, kept true: asserted when a session goes live,
 * re-asserted when its status, model, mode or title changes (retract + assert, so observers see the
 * change), retracted when it closes. Owner `host`; each fact names this host's key so a client
 * watching several hosts can tell them apart.
 */
import { passable } from './clone.js';
import type { Dataspace } from './dataspace.js';
import type { LiveSession, LiveSessions } from './live.js';

export type SessionFact = {
  type: 'session';
  host: string;
  id: string;
  provider: string;
  status: string;
  model: string;
  mode: string;
  cwd: string;
  title: string;
};

export function sessionFact(hostKey: string, ls: LiveSession): SessionFact {
  const row = ls.hs.stored();
  return {
    type: 'session',
    host: hostKey,
    id: ls.hs.id,
    provider: ls.hs.provider,
    status: ls.hs.state,
    model: ls.hs.catalog.model?.currentId ?? '',
    mode: ls.hs.catalog.mode?.currentId ?? '',
    cwd: row.cwd,
    title: row.title ?? '',
  };
}

export function publishSessions(host: { live: LiveSessions; dataspace: Dataspace; refs: { hostKey: string } }): () => void {
  const offs: (() => void)[] = [];
  const track = (ls: LiveSession): void => {
    let current = sessionFact(host.refs.hostKey, ls);
    let handle = host.dataspace.assert('host', passable(current));
    const off = ls.hs.subscribe((e) => {
      if (e.type === 'session.closed') {
        host.dataspace.retract('host', handle);
        off();
        return;
      }
      if (!['session.state', 'catalog.updated', 'info.updated', 'config.updated'].includes(e.type)) return;
      const next = sessionFact(host.refs.hostKey, ls);
      if (JSON.stringify(next) === JSON.stringify(current)) return;
      host.dataspace.retract('host', handle);
      current = next;
      handle = host.dataspace.assert('host', passable(current));
    });
    offs.push(off);
  };
  for (const ls of host.live.all()) track(ls);
  offs.push(host.live.onAdded(track));
  return () => offs.splice(0).forEach((f) => f());
}
