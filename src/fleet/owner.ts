/**
 * Who owns a live session (docs/fleet.md §3): the host its writer lease names, while that host is
 * online. A lease of this host, of a host that went offline or was revoked, or of a process outside
 * the fleet names no other owner: this host may open the session itself.
 */
import type { Store } from '../store/index.js';
import { hostOnline } from './view.js';

/** The host that owns a live session. */
export interface FleetOwner {
  id: string;
  name: string;
}

export function ownerOf(
  store: Pick<Store, 'leases' | 'fleetHosts'>,
  selfId: string,
  sessionId: string,
  at = Date.now(),
): FleetOwner | undefined {
  const l = store.leases.get(sessionId);
  if (!l || l.host === selfId) return undefined;
  const h = store.fleetHosts.get(l.host);
  return h && hostOnline(h, at) ? { id: h.id, name: h.name } : undefined;
}
