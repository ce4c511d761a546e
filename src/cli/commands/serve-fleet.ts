/**
 * `talaria serve` on a PostgreSQL store joins its fleet (docs/fleet.md §2): a host row with a
 * heartbeat lease, its live sessions' status for the other hosts, and their view for its own
 * session list. A SQLite store: no fleet, nothing changes. The fleet layer is loaded only here.
 */
import type { CapsHost } from '../../caps/host.js';
import type { Harness } from '../../harness/index.js';
import type { Logger } from '../../protocol/types.js';
import { PATHS, PEER_REF_HEADER, type SessionSnapshot, type StreamEvent } from '../../server/contract/index.js';
import { PEER_MAX_FRAME_BYTES, type FleetPeers, type ServerFleet } from '../../server/fleet.js';
import { steerNow } from '../../server/prompt-queue.js';
import type { RunningServer } from '../../server/server.js';
import { isPgUrl } from '../../store/index.js';

export interface ServeFleet {
  readonly member: import('../../fleet/index.js').FleetMember;
  readonly identity: import('../../fleet/index.js').HostIdentity;
  /** What the server is given: the member, and its peers once this host serves them (servePeers). */
  readonly server: ServerFleet;
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
  const identity = fleet.hostIdentity(harness.home);
  const member = fleet.startFleetMember({
    store: harness.store,
    storeUrl: o.storeUrl,
    identity,
    ...(o.publicUrl ? { publicUrl: o.publicUrl } : {}),
    agents: () => harness.registry.list().map((p) => ({ id: p.id })),
    ...(heartbeatMs ? { heartbeatMs } : {}),
    ...(leaseMs ? { leaseMs } : {}),
    ...(o.joinToken ? { joinToken: o.joinToken } : {}),
    onRevoked,
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
  const server: ServerFleet = {
    hostId: member.hostId,
    hosts: () => member.hosts(),
    sessions: () => member.sessions(),
    onChange: (fn) => member.onChange(fn),
    sessionStatus: (id, status) => member.sessionStatus(id, status),
  };
  return { member, identity, server, where: harness.store.path, revoked };
}

/**
 * Control goes to the owner (docs/fleet.md §3): this host answers other hosts' pair requests and
 * their peer references on `/captp` (the caps host, made for it when `--caps` is off: then `/captp`
 * takes no token), and forwards what its own clients ask of a session another live host owns
 * (`TALARIA_FLEET_FORWARD=0`: refuses it instead). A revoked host's references die on the
 * notification. Returns the stop.
 */
export async function servePeers(
  f: ServeFleet,
  o: { harness: Harness; caps: CapsHost; server: RunningServer; env: NodeJS.ProcessEnv; logger: Logger },
): Promise<() => Promise<void>> {
  const fleet = await import('../../fleet/index.js');
  const store = o.harness.store;
  const self = f.member.hostId;
  const pair = new fleet.PairService({ store, hostId: self, refs: o.caps.refs, logger: o.logger });
  const ownerOf = (id: string) => fleet.ownerOf(store, self, id);
  o.caps.servePeers({
    hostId: self,
    owns: (id) => ownerOf(id) === undefined,
    snapshot: (id) => o.server.snapshot(id),
    steer: (hs, body) => steerNow(hs, body),
    peerOk: (id) => pair.peerOk(id),
  });
  const forward =
    o.env.TALARIA_FLEET_FORWARD === '0'
      ? undefined
      : new fleet.PeerLinks<SessionSnapshot, StreamEvent>({
          identity: f.identity,
          store,
          logger: o.logger,
          paths: { pair: PATHS.fleetPair, captp: PATHS.captp, refHeader: PEER_REF_HEADER },
          maxFrameBytes: PEER_MAX_FRAME_BYTES,
        });
  const peers: FleetPeers = {
    pair: (body) => pair.pair(body),
    peerOf: (ref) => pair.peerOf(ref),
    onPeerRevoked: (fn) => pair.onPeerRevoked(fn),
    ownerOf,
    forward,
  };
  f.server.peers = peers;
  const sweep = () => {
    try {
      pair.sweep();
      // An owner revoked: this host stops talking to it.
      for (const h of f.member.hosts())
        if (!h.self && store.fleetHosts.get(h.id)?.revokedAt !== undefined) void forward?.close(h.id);
    } catch (err) {
      o.logger.warn('fleet: revoked hosts not swept', { error: String(err) });
    }
  };
  sweep();
  const off = f.member.onChange(sweep);
  return async () => {
    off();
    f.server.peers = undefined;
    await forward?.close();
  };
}
