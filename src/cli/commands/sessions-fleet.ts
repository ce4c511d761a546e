/**
 * `talaria sessions list --fleet`: every host's sessions from the shared store (no running server
 * needed): each with the host that runs or ran it and its live status, "offline" when that host's
 * lease ran out. A store no fleet shares lists its sessions with no host.
 */
import type { FleetHostRow, StoredSession, Store } from '../../store/index.js';

export interface FleetListRow {
  id: string;
  title?: string;
  provider: string;
  cwd: string;
  archived: boolean;
  updatedAt: number;
  host?: { id: string; name: string; online: boolean };
  /** The owner's live status; `offline`: its host is; `stored`: no host ever reported it live. */
  status: 'idle' | 'running' | 'asking' | 'closed' | 'offline' | 'stored';
}

const online = (h: FleetHostRow, at: number) => h.revokedAt === undefined && h.leaseUntil > at;

export function fleetList(
  store: Store,
  sessions: StoredSession[],
  now: number = Date.now(),
): { hosts: { id: string; name: string; url?: string; online: boolean }[]; sessions: FleetListRow[] } {
  const hosts = new Map(store.fleetHosts.list().map((h) => [h.id, h]));
  const presence = new Map(store.presence.list().map((p) => [p.sessionId, p]));
  return {
    hosts: [...hosts.values()].map((h) => ({
      id: h.id,
      name: h.name,
      ...(h.url ? { url: h.url } : {}),
      online: online(h, now),
    })),
    sessions: sessions.map((s) => {
      const p = presence.get(s.id);
      const h = p && hosts.get(p.hostId);
      const up = h !== undefined && online(h, now);
      return {
        id: s.id,
        ...(s.title ? { title: s.title } : {}),
        provider: s.provider,
        cwd: s.cwd,
        archived: s.archived,
        updatedAt: s.lastActiveAt ?? s.updatedAt,
        ...(h ? { host: { id: h.id, name: h.name, online: up } } : {}),
        status: !p ? 'stored' : up ? p.status : 'offline',
      };
    }),
  };
}

/** One line per session: id, host, status, agent, title (plain text: a fleet list is read, not styled). */
export function fleetRows(rows: FleetListRow[]): string[] {
  if (rows.length === 0) return ['no sessions'];
  const status = (r: FleetListRow) => (r.status === 'offline' ? 'host offline' : r.status);
  const hostW = Math.max(4, ...rows.map((r) => (r.host?.name ?? '-').length));
  const statusW = Math.max(6, ...rows.map((r) => status(r).length));
  return rows.map((r) =>
    `${r.id.slice(0, 8)}  ${(r.host?.name ?? '-').padEnd(hostW)}  ${status(r).padEnd(statusW)}  ${r.provider}  ${r.title ?? ''}`.trimEnd(),
  );
}
