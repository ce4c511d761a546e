/**
 * The fleet view in the caps face's presence dataspace (seed 004: discovery as a dataspace):
 * `{type: 'host', id, name, url, online, self, agents, load}` per host and, for sessions another
 * host runs, `{type: 'session', id, host, status, remote: true}` (this host's own sessions are
 * session-facts.ts's). A change retracts the fact and asserts the new one, so observers see it;
 * owner `fleet`, everything retracted on close. Loaded only with `--caps` (it imports caps).
 */
import { passable } from '../caps/clone.js';
import type { Dataspace } from '../caps/dataspace.js';
import type { FleetHostState, FleetSessionState } from './view.js';

const OWNER = 'fleet';

export interface FleetSource {
  readonly hostId: string;
  hosts(): FleetHostState[];
  sessions(): FleetSessionState[];
  onChange(fn: () => void): () => void;
}

export function hostFact(h: FleetHostState) {
  return {
    type: 'host',
    id: h.id,
    name: h.name,
    url: h.url ?? '',
    online: h.online,
    self: h.self,
    agents: h.agents ?? [],
    load: h.load ?? {},
  };
}

export function remoteSessionFact(s: FleetSessionState) {
  return { type: 'session', id: s.id, host: s.hostId, status: s.status, remote: true };
}

/** Keeps the facts true as the fleet view changes. Returns the stop (retracts them all). */
export function publishFleetFacts(dataspace: Dataspace, fleet: FleetSource): () => void {
  const held = new Map<string, { handle: string; json: string }>();
  const sync = () => {
    const want = new Map<string, Record<string, unknown>>();
    for (const h of fleet.hosts()) want.set(`host:${h.id}`, hostFact(h));
    for (const s of fleet.sessions()) if (s.hostId !== fleet.hostId) want.set(`session:${s.id}`, remoteSessionFact(s));
    for (const [key, had] of held) {
      const f = want.get(key);
      if (f && JSON.stringify(f) === had.json) continue;
      dataspace.retract(OWNER, had.handle);
      held.delete(key);
    }
    for (const [key, f] of want) {
      if (held.has(key)) continue;
      held.set(key, { handle: dataspace.assert(OWNER, passable(f)), json: JSON.stringify(f) });
    }
  };
  sync();
  const off = fleet.onChange(sync);
  return () => {
    off();
    dataspace.retractAll(OWNER);
    held.clear();
  };
}
