/**
 * What the server needs of a fleet (docs/fleet.md §2), defined here so the server never imports
 * src/fleet (that would load caps' lockdown into every server): `talaria serve` passes an
 * implementation when its store is PostgreSQL. The server reports its live sessions' status
 * (from the hub's session updates) and lists every host's sessions with their host and status.
 */
import type { FleetStatus, SessionSummaryInfo } from './contract/index.js';
import type { Hub, LiveSession } from './hub.js';

export type LiveStatus = Exclude<FleetStatus, 'offline'>;

export interface ServerFleetHost {
  id: string;
  name: string;
  online: boolean;
  self: boolean;
}

export interface ServerFleet {
  readonly hostId: string;
  hosts(): ServerFleetHost[];
  /** Every session with a presence row: its host and status (`offline` when its host is). */
  sessions(): { id: string; hostId: string; status: FleetStatus }[];
  /** Runs when hosts() or sessions() would answer differently. */
  onChange(fn: () => void): () => void;
  /** A session live on this server changed status. */
  sessionStatus(sessionId: string, status: LiveStatus): void;
}

/** A live session's status from its summary: asking beats running (a turn waits on a person). */
export function liveStatusOf(s: SessionSummaryInfo): LiveStatus {
  if (!s.live) return 'closed';
  if (s.needsAttention) return 'asking';
  return s.state === 'running' || s.state === 'cancelling' ? 'running' : 'idle';
}

/** A live session's status from the hub's record of it. */
function statusOfLive(ls: LiveSession): LiveStatus {
  const state = ls.hs.session.state;
  if (state === 'closed' || state === 'failed') return 'closed';
  if (ls.pending.size > 0) return 'asking';
  return state === 'running' || state === 'cancelling' ? 'running' : 'idle';
}

/** Feeds the hub's live sessions' changes to the fleet (the sessions live now first). Returns the unsubscribe. */
export function reportLiveSessions(hub: Hub, fleet: ServerFleet): () => void {
  const offLive = hub.onLiveChanged((ls) => fleet.sessionStatus(ls.hs.id, statusOfLive(ls)));
  // A session attached (or closed) without a state event of its own is in the list's updates.
  const offList = hub.onSessionUpdated((s) => {
    const ls = hub.get(s.id);
    fleet.sessionStatus(s.id, ls ? statusOfLive(ls) : 'closed');
  });
  for (const ls of hub.live.values()) fleet.sessionStatus(ls.hs.id, statusOfLive(ls));
  return () => (offLive(), offList());
}

/** A list's summaries with their host and status: this host's live state, other hosts' presence. */
export function withFleet(list: SessionSummaryInfo[], fleet: ServerFleet): SessionSummaryInfo[] {
  const hosts = new Map(fleet.hosts().map((h) => [h.id, h]));
  const presence = new Map(fleet.sessions().map((p) => [p.id, p]));
  const self = hosts.get(fleet.hostId);
  return list.map((s) => {
    const p = presence.get(s.id);
    // Live here: what this server knows now, not what it last wrote.
    if (s.live && self) return { ...s, host: { ...self }, presence: liveStatusOf(s) };
    if (!p) return s;
    const h = hosts.get(p.hostId);
    if (!h) return s;
    return { ...s, host: { ...h }, presence: p.status };
  });
}
