/**
 * `talaria serve` on a PostgreSQL store joins its fleet (docs/fleet.md §2): a host row with a
 * heartbeat lease, its live sessions' status for the other hosts, and their view for its own
 * session list. A SQLite store: no fleet, nothing changes. The fleet layer is loaded only here.
 */
import type { Harness } from '../../harness/index.js';
import type { Logger } from '../../protocol/types.js';
import { isPgUrl } from '../../store/index.js';

export interface ServeFleet {
  readonly member: import('../../fleet/index.js').FleetMember;
  readonly where: string;
  /** Settles when this host is revoked (`talaria fleet revoke`): it has left the fleet; serve stops. */
  readonly revoked: Promise<Error>;
}

/** Milliseconds from the environment (tests shorten the lease), else the default. */
function ms(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = Number(env[name]);
  return env[name] && Number.isFinite(v) && v > 0 ? v : undefined;
}

/** Joins the fleet when the store is a postgres:// URL; undefined otherwise. */
export async function joinFleet(
  harness: Harness,
  o: {
    storeUrl: string | undefined;
    publicUrl: string | undefined;
    /** `--join` or $TALARIA_FLEET_JOIN: needed to join the first time (fleet/join.ts). */
    joinToken: string | undefined;
    /** Where serve binds and whether with TLS: its origin, the public URL when none is given. */
    bind: { host: string; tls: boolean };
    env: NodeJS.ProcessEnv;
    logger: Logger;
  },
): Promise<ServeFleet | undefined> {
  if (o.storeUrl === undefined || !isPgUrl(o.storeUrl)) return undefined;
  const fleet = await import('../../fleet/index.js');
  // The origin is known once listening; whether it is plain HTTP off loopback is known now.
  const h = o.bind.host.includes(':') ? `[${o.bind.host}]` : o.bind.host;
  fleet.checkFleetUrl(o.publicUrl ?? `${o.bind.tls ? 'https' : 'http'}://${h}/`);
  let onRevoked: (e: Error) => void = () => undefined;
  const revoked = new Promise<Error>((r) => (onRevoked = r));
  const heartbeatMs = ms(o.env, 'TALARIA_FLEET_HEARTBEAT_MS');
  const leaseMs = ms(o.env, 'TALARIA_FLEET_LEASE_MS');
  const member = fleet.startFleetMember({
    store: harness.store,
    storeUrl: o.storeUrl,
    identity: fleet.hostIdentity(harness.home),
    ...(o.publicUrl ? { publicUrl: o.publicUrl } : {}),
    agents: () => harness.registry.list().map((p) => ({ id: p.id })),
    ...(heartbeatMs ? { heartbeatMs } : {}),
    ...(leaseMs ? { leaseMs } : {}),
    ...(o.joinToken ? { joinToken: o.joinToken } : {}),
    onRevoked,
    logger: o.logger,
  });
  return { member, where: harness.store.path, revoked };
}
