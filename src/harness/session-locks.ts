/**
 * One writer per stored session (store/leases.ts): a harness takes a session's lease before it
 * opens the session at the agent, and gives it back when the session closes. A second harness —
 * another `talaria run --session X`, a chat — waits up to `waitMs` for it, then is refused with
 * `session_busy`, naming the holder. Two writers would interleave two conversations in one wire
 * log and overwrite each other's thread entries; waiting instead means the second one loads the
 * session with the first one's turn in it.
 *
 * In a fleet (docs/fleet.md §3) a lease names the fleet host, not the machine: a lease held by
 * another fleet host is alive while that host is online (its row's lease running, not revoked)
 * and is never waited for (that host owns the session: `session_owned_elsewhere`); the pid check
 * is only for holders on this same host. The harness does not know the fleet: `talaria serve`
 * tells it (joinFleet) how to read a host's state.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { TalariaError } from '../protocol/errors.js';
import type { Lease, LeaseHolder, Store } from '../store/index.js';

/** A holder on this host whose process is gone holds nothing; one elsewhere cannot be checked. */
export function holderAlive(l: Lease, host = hostname()): boolean {
  if (l.host !== host) return true;
  try {
    process.kill(l.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const POLL_MS = 100;

/** What the lease check needs of a fleet: a host's state by id, undefined when it is no fleet host. */
export interface LeaseFleet {
  hostId: string;
  host(id: string): { name: string; online: boolean } | undefined;
}

export class SessionLocks {
  readonly holder: LeaseHolder = { owner: randomUUID(), pid: process.pid, host: hostname() };
  private readonly held = new Set<string>();
  private fleet: LeaseFleet | undefined;

  constructor(
    private readonly store: Store,
    private readonly o: {
      /** How long to wait for another process's lease (default 0: refuse at once). */
      waitMs?: number;
      /** Told once per acquire that has to wait (a face can say who holds the session). */
      onWait?: (holder: Lease) => void;
      alive?: (l: Lease) => boolean;
    } = {},
  ) {}

  /** This harness is the fleet host `f.hostId`: its leases name it from now on. */
  joinFleet(f: LeaseFleet): void {
    this.fleet = f;
    this.holder.host = f.hostId;
  }

  /** Whether a lease's holder still holds it: another fleet host's while it is online, else the pid check. */
  private holderAlive(l: Lease): boolean {
    const f = this.fleet;
    if (f && l.host !== f.hostId) {
      const h = f.host(l.host);
      if (h) return h.online;
    }
    // Our own fleet host id is this machine; anything else is compared with the machine's name.
    return holderAlive(l, f && l.host === f.hostId ? f.hostId : hostname());
  }

  /** Takes `sessionId`'s lease, waiting up to waitMs while another process holds it. */
  async acquire(sessionId: string): Promise<void> {
    if (this.held.has(sessionId)) {
      throw new TalariaError(
        'session_busy',
        `session ${sessionId} is already open in this harness; use the open session or close it first`,
        { sessionId },
      );
    }
    const deadline = Date.now() + (this.o.waitMs ?? 0);
    const alive = this.o.alive ?? ((l: Lease) => this.holderAlive(l));
    for (let attempt = 0; ; attempt++) {
      const other = this.store.leases.acquire(sessionId, this.holder, alive);
      if (!other) {
        this.held.add(sessionId);
        return;
      }
      // Another live host of the fleet owns it: waiting would only wait for that host to close it.
      const owner = this.fleet && other.host !== this.fleet.hostId ? this.fleet.host(other.host) : undefined;
      if (owner) throw ownedElsewhere(sessionId, other, owner.name);
      const left = deadline - Date.now();
      if (left <= 0) throw busy(sessionId, other, this.holder.host);
      if (attempt === 0) this.o.onWait?.(other);
      await new Promise((r) => setTimeout(r, Math.min(POLL_MS, left)));
    }
  }

  release(sessionId: string): void {
    if (!this.held.delete(sessionId)) return;
    if (!this.store.closed) this.store.leases.release(sessionId, this.holder.owner);
  }

  releaseAll(): void {
    for (const id of [...this.held]) this.release(id);
  }
}

function ownedElsewhere(sessionId: string, l: Lease, name: string): TalariaError {
  return new TalariaError(
    'session_owned_elsewhere',
    `session ${sessionId} is live on host ${name}: it is driven there (or from a host that forwards to it)`,
    { sessionId, host: l.host, hostName: name, since: l.acquiredAt },
  );
}

function busy(sessionId: string, l: Lease, host: string): TalariaError {
  const where = l.host === host ? `process ${l.pid}` : `process ${l.pid} on ${l.host}`;
  return new TalariaError(
    'session_busy',
    `session ${sessionId} is open in another Talaria ${where}; close it there (or let its turn finish) and try again`,
    {
      sessionId,
      pid: l.pid,
      host: l.host,
      since: l.acquiredAt,
    },
  );
}
