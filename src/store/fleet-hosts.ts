/**
 * The hosts of a fleet (fleet_hosts, migration 011): one row per `talaria serve` sharing the
 * store, renewed by its heartbeat. Rows only: when a host counts as online is the reader's
 * `now < leaseUntil && !revokedAt` (src/fleet/member.ts).
 */
import type { SqlDb } from './sql.js';

export interface FleetHostRow {
  id: string;
  name: string;
  /** Its public URL, when it has one. */
  url: string | undefined;
  /** The host's Ed25519 public key (PEM or base64, as src/fleet/identity.ts gives it). */
  publicKey: string;
  /** Its agents and their readiness, as the host reports them. */
  agents: unknown;
  /** Its load (live sessions, turns running…). */
  load: unknown;
  startedAt: number;
  heartbeatAt: number;
  leaseUntil: number;
  revokedAt: number | undefined;
}

interface Row {
  id: string;
  name: string;
  url: string | null;
  public_key: string;
  agents: string;
  load: string;
  started_at: number;
  heartbeat_at: number;
  lease_until: number;
  revoked_at: number | null;
}

const toHost = (r: Row): FleetHostRow => ({
  id: r.id,
  name: r.name,
  url: r.url ?? undefined,
  publicKey: r.public_key,
  agents: JSON.parse(r.agents) as unknown,
  load: JSON.parse(r.load) as unknown,
  // BIGINT columns arrive as numbers from both backends (the PostgreSQL port parses int8).
  startedAt: Number(r.started_at),
  heartbeatAt: Number(r.heartbeat_at),
  leaseUntil: Number(r.lease_until),
  revokedAt: r.revoked_at === null ? undefined : Number(r.revoked_at),
});

export type FleetHostsRepo = ReturnType<typeof createFleetHostsRepo>;

export function createFleetHostsRepo(db: SqlDb) {
  const upsert = db.prepare(
    `INSERT INTO fleet_hosts (id, name, url, public_key, agents, load, started_at, heartbeat_at, lease_until, revoked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, url = excluded.url, public_key = excluded.public_key,
       agents = excluded.agents, load = excluded.load, started_at = excluded.started_at,
       heartbeat_at = excluded.heartbeat_at, lease_until = excluded.lease_until`,
  );
  const beat = db.prepare(
    'UPDATE fleet_hosts SET agents = ?, load = ?, heartbeat_at = ?, lease_until = ? WHERE id = ?',
  );
  const expire = db.prepare('UPDATE fleet_hosts SET lease_until = ? WHERE id = ? AND lease_until > ?');
  const setUrl = db.prepare('UPDATE fleet_hosts SET url = ? WHERE id = ?');
  const revoke = db.prepare('UPDATE fleet_hosts SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const readmit = db.prepare('UPDATE fleet_hosts SET revoked_at = NULL WHERE id = ?');
  const byId = db.prepare<[string], Row>('SELECT * FROM fleet_hosts WHERE id = ?');
  const all = db.prepare<[], Row>('SELECT * FROM fleet_hosts ORDER BY name, id');

  return {
    /** Registers the host (or re-registers it after a restart: a new start, its revocation kept). */
    register(h: Omit<FleetHostRow, 'revokedAt'>): void {
      upsert.run(
        h.id,
        h.name,
        h.url ?? null,
        h.publicKey,
        JSON.stringify(h.agents ?? null),
        JSON.stringify(h.load ?? null),
        h.startedAt,
        h.heartbeatAt,
        h.leaseUntil,
      );
    },
    /** Renews the lease with what the host reports now; false when the row is gone. */
    heartbeat(id: string, at: number, leaseUntil: number, agents: unknown, load: unknown): boolean {
      return beat.run(JSON.stringify(agents ?? null), JSON.stringify(load ?? null), at, leaseUntil, id).changes > 0;
    },
    /** Where the host is reached (known once its server listens, after it registered). */
    setUrl(id: string, url: string | undefined): boolean {
      return setUrl.run(url ?? null, id).changes > 0;
    },
    /** Ends the lease at `at` (a graceful stop: offline at once). */
    expire(id: string, at: number): boolean {
      return expire.run(at, id, at).changes > 0;
    },
    revoke(id: string, at: number): boolean {
      return revoke.run(at, id).changes > 0;
    },
    /** Lifts a revocation: the host came back with a new join token (src/fleet/join.ts). */
    readmit(id: string): boolean {
      return readmit.run(id).changes > 0;
    },
    get(id: string): FleetHostRow | undefined {
      const r = byId.get(id);
      return r && toHost(r);
    },
    list(): FleetHostRow[] {
      return all.all().map(toHost);
    },
  };
}
