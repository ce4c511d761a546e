/**
 * A `talaria serve` as a member of a fleet (docs/fleet.md §2): registers its host row, renews its
 * lease on a heartbeat, writes its live sessions' status to session_presence, and NOTIFYs each
 * change (the payload names the row). It keeps a view of the whole fleet from its own LISTEN
 * connection, reloading everything after a gap in the feed (NOTIFY is not durable).
 */
import type { Logger } from '../protocol/types.js';
import type { PresenceStatus, Store } from '../store/index.js';
import { listenPg, type PgListener } from '../store/pg/listen.js';
import type { HostIdentity } from './identity.js';
import { FleetError } from './errors.js';
import { admitHost, checkFleetUrl } from './join.js';
import {
  FLEET_CHANNEL,
  FleetView,
  parseChange,
  type FleetChange,
  type FleetHostState,
  type FleetSessionState,
} from './view.js';

export { FLEET_CHANNEL };

export interface FleetMemberOptions {
  store: Store;
  /** The store's postgres:// URL, for the LISTEN connection. */
  storeUrl: string;
  identity: HostIdentity;
  /** Where other hosts and people reach this one. */
  publicUrl?: string;
  /** Its agents and their readiness (default none). */
  agents?: () => unknown;
  /** Its load (default: live sessions and turns running, from the statuses it was told). */
  load?: () => unknown;
  /** Lease renewal (default 5 s). */
  heartbeatMs?: number;
  /** Lease length (default 15 s). */
  leaseMs?: number;
  now?: () => number;
  logger?: Logger;
  channel?: string;
  /** A join token (join.ts): needed the first time this host joins, and after a revocation. */
  joinToken?: string;
  /** This host was revoked: it has left the fleet (no heartbeat, no LISTEN). */
  onRevoked?: (err: FleetError) => void;
}

export interface FleetMember {
  readonly hostId: string;
  readonly hostName: string;
  /** Resolves when the LISTEN is in place. */
  readonly ready: Promise<void>;
  hosts(): FleetHostState[];
  sessions(): FleetSessionState[];
  /** Runs on any change of what hosts() or sessions() answer. */
  onChange(fn: () => void): () => void;
  /** A live session of this host changed status (written when it differs from the last written). */
  sessionStatus(sessionId: string, status: PresenceStatus): void;
  setPublicUrl(url: string): void;
  /** Ends the lease now and closes this host's sessions: other hosts show it offline at once. */
  stop(): Promise<void>;
}

export function startFleetMember(o: FleetMemberOptions): FleetMember {
  const { store, identity } = o;
  const now = o.now ?? Date.now;
  const heartbeatMs = o.heartbeatMs ?? 5_000;
  const leaseMs = o.leaseMs ?? 15_000;
  const channel = o.channel ?? FLEET_CHANNEL;
  const log = o.logger;
  const id = identity.id;
  let url = o.publicUrl;
  /** What this host wants each of its sessions to show; `written`: what the store has. */
  const wanted = new Map<string, PresenceStatus>();
  const written = new Map<string, PresenceStatus>();
  const load =
    o.load ??
    (() => {
      const live = [...wanted.values()].filter((s) => s !== 'closed');
      return { sessions: live.length, running: live.filter((s) => s === 'running').length };
    });
  const agents = o.agents ?? (() => []);
  let reported = '';
  let stopped = false;
  /** Session rows this store wrote since the last flush: other hosts' lists show them at once. */
  const rows = new Set<string>();
  /** A flush is queued for the next turn of the event loop (a burst of changes is written once). */
  let queued = false;
  /** The last write of a status failed: the store is out, and the heartbeat retries (not every change). */
  let failing = false;

  const send = (c: FleetChange) => store.notify(channel, JSON.stringify(c));
  const report = () => JSON.stringify([agents(), load(), url ?? null]);

  function register(join = false): void {
    const at = now();
    store.transaction(() => {
      // Joining (this start) is the token's business; a row gone under a running host comes back as it was.
      if (join) admitHost(store, id, o.joinToken, at);
      // A row left by a kill -9 of this host: its sessions are not running any more.
      for (const sid of store.presence.closeHost(id, at)) send({ kind: 'session', id: sid, host: id });
      store.fleetHosts.register({
        id,
        name: identity.name,
        url,
        publicKey: identity.publicKey,
        agents: agents(),
        load: load(),
        startedAt: at,
        heartbeatAt: at,
        leaseUntil: at + leaseMs,
      });
      send({ kind: 'host', id });
    });
    reported = report();
  }

  /**
   * Off the caller's path (the hub's event handling): a status write is a round trip to PostgreSQL,
   * and while it is out every try waits its timeout.
   */
  function queueFlush(): void {
    if (queued || stopped || failing) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      if (!stopped) flushSessions();
    });
  }

  function flushSessions(): void {
    failing = false;
    if (rows.size > 0) {
      const ids = [...rows];
      rows.clear();
      try {
        for (const sid of ids) send({ kind: 'row', id: sid, host: id });
      } catch (err) {
        // Not retried: a host whose feed had a gap reloads its lists anyway.
        log?.warn('fleet: session row change not announced', { error: String(err) });
      }
    }
    for (const [sid, status] of wanted) {
      if (written.get(sid) === status) continue;
      try {
        store.transaction(() => {
          if (store.presence.set(sid, id, status, now())) send({ kind: 'session', id: sid, host: id });
        });
        written.set(sid, status);
      } catch (err) {
        // Kept in `wanted`: the next heartbeat tries again.
        log?.warn('fleet: session status not written', { session: sid, error: String(err) });
        failing = true;
        return;
      }
    }
  }

  function beat(): void {
    if (stopped) return;
    try {
      const at = now();
      const r = report();
      store.transaction(() => {
        const known = store.fleetHosts.heartbeat(id, at, at + leaseMs, agents(), load());
        if (!known) return register();
        if (r !== reported) send({ kind: 'host', id });
      });
      reported = r;
      flushSessions();
    } catch (err) {
      log?.warn('fleet: heartbeat failed', { error: String(err) });
    }
    try {
      view.tick();
    } catch (err) {
      log?.warn('fleet: could not read the hosts', { error: String(err) });
    }
  }

  if (url !== undefined) checkFleetUrl(url);
  const view = new FleetView(store, id, now);
  const offRows = store.sessions.onChange((sid) => {
    rows.add(sid);
    queueFlush();
  });
  register(true);
  view.reload();
  const listener: PgListener = listenPg(o.storeUrl, channel, {
    onNotify: (payload) => {
      const c = parseChange(payload);
      if (c) view.apply(c);
    },
    onResync: () => {
      log?.info('fleet: change feed back, reloading the fleet view');
      try {
        view.reload();
      } catch (err) {
        log?.warn('fleet: reload failed', { error: String(err) });
      }
    },
    ...(log ? { logger: log } : {}),
  });
  // What changed before the LISTEN was in place came with no notification: read it all once more.
  const ready = listener.ready.then(() => view.reload());
  ready.catch(() => undefined);
  const timer = setInterval(beat, heartbeatMs);
  timer.unref();
  // Revoked (`talaria fleet revoke`): seen on the notification, or on the next tick's read.
  view.onChange(() => {
    if (!stopped && view.hostList().some((h) => h.self && h.revoked)) leave();
  });
  function leave(): void {
    stopped = true;
    clearInterval(timer);
    offRows();
    const err = new FleetError(
      'host_revoked',
      `this host (${identity.name}, ${id}) was revoked from the fleet: it left`,
      { hostId: id },
      { fix: 'it rejoins only with a new join token (talaria fleet token)' },
    );
    log?.error('fleet: this host was revoked; it left the fleet', { host: id });
    listener.close().catch(() => undefined);
    o.onRevoked?.(err);
  }

  return {
    hostId: id,
    hostName: identity.name,
    ready,
    hosts: () => view.hostList(),
    sessions: () => view.sessionList(),
    onChange: (fn) => view.onChange(fn),
    sessionStatus(sessionId, status) {
      if (stopped || wanted.get(sessionId) === status) return;
      wanted.set(sessionId, status);
      queueFlush();
    },
    setPublicUrl(u) {
      checkFleetUrl(u);
      url = u;
      // A heartbeat renews the lease only: the row's URL is written here (peers reach this host by it).
      try {
        store.transaction(() => {
          if (store.fleetHosts.setUrl(id, u)) send({ kind: 'host', id });
        });
        reported = report();
      } catch (err) {
        log?.warn('fleet: public URL not written', { error: String(err) });
      }
      beat();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      offRows();
      try {
        const at = now();
        store.transaction(() => {
          for (const sid of store.presence.closeHost(id, at)) send({ kind: 'session', id: sid, host: id });
          store.fleetHosts.expire(id, at);
          send({ kind: 'host', id });
        });
      } catch (err) {
        log?.warn('fleet: could not mark this host offline (its lease will run out)', { error: String(err) });
      }
      await listener.close();
    },
  };
}
