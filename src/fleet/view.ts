/**
 * A host's picture of its fleet: every host row and every session's presence, kept from the
 * store and refreshed row by row on notifications (member.ts). Whether a host is online is a
 * matter of time as much as of rows (its lease runs out with no write at all), so `online` is
 * computed on read, and `tick()` tells when that answer changed.
 */
import type { FleetHostRow, PresenceStatus, SessionPresenceRow, Store } from '../store/index.js';

export interface FleetHostState {
  id: string;
  name: string;
  url: string | undefined;
  /** Its lease is running and it is not revoked. */
  online: boolean;
  /** This host. */
  self: boolean;
  /** Revoked from the fleet (`talaria fleet revoke`): offline for good. */
  revoked?: boolean;
  agents: unknown;
  load: unknown;
  heartbeatAt: number;
  leaseUntil: number;
}

export interface FleetSessionState {
  id: string;
  hostId: string;
  /** What its host last wrote; `offline` when that host's lease ran out (or it was revoked). */
  status: PresenceStatus | 'offline';
}

/** The channel of the fleet's change feed (LISTEN/NOTIFY). */
export const FLEET_CHANNEL = 'talaria_fleet';

/** A notification's payload: names the row that changed, never its content. */
export type FleetChange =
  | { kind: 'host'; id: string }
  | { kind: 'session'; id: string; host: string }
  /** A session row a host wrote (created, titled, archived, touched): other hosts' lists read it again. */
  | { kind: 'row'; id: string; host: string };

export function parseChange(payload: string): FleetChange | undefined {
  try {
    const v = JSON.parse(payload) as Partial<FleetChange> & { host?: unknown };
    if (v.kind === 'host' && typeof v.id === 'string') return { kind: 'host', id: v.id };
    if (v.kind === 'row' && typeof v.id === 'string' && typeof v.host === 'string')
      return { kind: 'row', id: v.id, host: v.host };
    if (v.kind === 'session' && typeof v.id === 'string' && typeof v.host === 'string')
      return { kind: 'session', id: v.id, host: v.host };
  } catch {
    // Not ours: ignored below.
  }
  return undefined;
}

/** A host is online while its lease runs and it is not revoked (the one definition: the view, the lease check). */
export function hostOnline(h: Pick<FleetHostRow, 'revokedAt' | 'leaseUntil'>, at: number): boolean {
  return h.revokedAt === undefined && h.leaseUntil > at;
}

export class FleetView {
  private readonly hosts = new Map<string, FleetHostRow>();
  private readonly presence = new Map<string, SessionPresenceRow>();
  private readonly listeners = new Set<() => void>();
  /** Which hosts were online when last told, to notice a lease running out. */
  private lastOnline = '';

  constructor(
    private readonly store: Store,
    private readonly selfId: string,
    private readonly now: () => number,
  ) {}

  /** Every row again (the start, and after the feed had a gap). */
  reload(): void {
    this.hosts.clear();
    for (const h of this.store.fleetHosts.list()) this.hosts.set(h.id, h);
    this.presence.clear();
    for (const p of this.store.presence.list()) this.presence.set(p.sessionId, p);
    this.changed();
  }

  /** The one row a notification names. */
  apply(c: FleetChange): void {
    if (c.kind === 'host') {
      const h = this.store.fleetHosts.get(c.id);
      if (h) this.hosts.set(h.id, h);
      else this.hosts.delete(c.id);
    } else if (c.kind === 'session') {
      const p = this.store.presence.get(c.id);
      if (p) this.presence.set(p.sessionId, p);
      else this.presence.delete(c.id);
    } else if (c.host === this.selfId) {
      return; // this host's own row: its clients heard of it from its hub already
    }
    this.changed();
  }

  /**
   * Reads the host rows again (a heartbeat renews a lease without a notification: without this,
   * a live host would look offline once the lease last notified ran out), then tells the
   * listeners when a lease ran out (or came back) since the last change.
   */
  tick(): void {
    this.hosts.clear();
    for (const h of this.store.fleetHosts.list()) this.hosts.set(h.id, h);
    if (this.onlineKey() !== this.lastOnline) this.changed();
  }

  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  private online(h: FleetHostRow, at: number): boolean {
    return hostOnline(h, at);
  }

  private onlineKey(): string {
    const at = this.now();
    return [...this.hosts.values()]
      .filter((h) => this.online(h, at))
      .map((h) => h.id)
      .sort()
      .join(',');
  }

  private changed(): void {
    this.lastOnline = this.onlineKey();
    for (const fn of [...this.listeners]) fn();
  }

  hostList(): FleetHostState[] {
    const at = this.now();
    return [...this.hosts.values()].map((h) => ({
      id: h.id,
      name: h.name,
      url: h.url,
      online: this.online(h, at),
      self: h.id === this.selfId,
      revoked: h.revokedAt !== undefined,
      agents: h.agents,
      load: h.load,
      heartbeatAt: h.heartbeatAt,
      leaseUntil: h.leaseUntil,
    }));
  }

  sessionList(): FleetSessionState[] {
    const at = this.now();
    return [...this.presence.values()].map((p) => {
      const h = this.hosts.get(p.hostId);
      const up = h !== undefined && this.online(h, at);
      return { id: p.sessionId, hostId: p.hostId, status: up ? p.status : 'offline' };
    });
  }
}
