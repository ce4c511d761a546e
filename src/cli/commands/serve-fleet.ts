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
}

/** Milliseconds from the environment (tests shorten the lease), else the default. */
function ms(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = Number(env[name]);
  return env[name] && Number.isFinite(v) && v > 0 ? v : undefined;
}

/** Joins the fleet when the store is a postgres:// URL; undefined otherwise. */
export async function joinFleet(
  harness: Harness,
  o: { storeUrl: string | undefined; publicUrl: string | undefined; env: NodeJS.ProcessEnv; logger: Logger },
): Promise<ServeFleet | undefined> {
  if (o.storeUrl === undefined || !isPgUrl(o.storeUrl)) return undefined;
  const fleet = await import('../../fleet/index.js');
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
    logger: o.logger,
  });
  // Leases name this host; another host's lease holds while its row says it is online (docs/fleet.md §3).
  harness.joinFleet({
    hostId: member.hostId,
    host: (id) => {
      const h = harness.store.fleetHosts.get(id);
      return h && { name: h.name, online: fleet.hostOnline(h, Date.now()) };
    },
  });
  return { member, where: harness.store.path };
}
