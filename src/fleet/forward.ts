/**
 * Forwarding (docs/fleet.md §3): on a host that is not a session's owner, its prompts, cancels,
 * permission answers, snapshot and events go to the owner over the owner's `/captp`, with the
 * reference the owner minted for this host when it paired (pair.ts). One connection per owner,
 * opened on first use; the secret lives in this process's memory only. The owner's own session
 * (its broker, its event log) decides everything: which answer came first, the events' seq.
 */
import type { CapsClient, CapsSession } from '../caps/client.js';
import type { Logger } from '../protocol/types.js';
import { isLoopbackHost } from '../os/loopback.js';
import type { SteerHow } from '../session/steer.js';
import type { Store } from '../store/index.js';
import { FleetError } from './errors.js';
import type { HostIdentity } from './identity.js';
import type { FleetOwner } from './owner.js';
import { pairRequest } from './pair.js';

/** What a CapTP call adds around its arguments (message type, ids, the target's slots): a generous bound. */
const FRAME_ENVELOPE_BYTES = 64 * 1024;

interface CapsPeer<Snap> {
  openSession(sessionId: string): Promise<CapsSession>;
  snapshot(sessionId: string): Promise<Snap>;
  steer(sessionId: string, body: { text?: string; queued?: string }): Promise<SteerAnswer>;
}

/** What a steer did (the owner's server's answer). */
export interface SteerAnswer {
  how: SteerHow;
  via?: string;
  turnId?: string;
}

interface Link {
  client: CapsClient<CapsPeer<unknown>>;
  sessions: Map<string, Promise<CapsSession>>;
}

type CapsModule = typeof import('../caps/client.js');

export interface PeerLinksOptions {
  identity: HostIdentity;
  /** Where a host answers pair requests and serves `/captp`, and the header a peer reference goes in (the server's contract). */
  paths: { pair: string; captp: string; refHeader: string };
  /** The largest frame a peer socket carries (the server's PEER_MAX_FRAME_BYTES). */
  maxFrameBytes: number;
  store: Pick<Store, 'fleetHosts'>;
  logger?: Logger;
}

/** Where a host is reached: its public URL; plain HTTP only on loopback (the reference crosses it). */
function baseUrl(owner: FleetOwner, url: string | undefined): URL {
  if (!url) throw new FleetError('peer_unreachable', `host ${owner.name} has no public URL`);
  const u = new URL(url);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && isLoopbackHost(u.hostname)))
    throw new FleetError(
      'peer_unreachable',
      `host ${owner.name} is reached over plain HTTP off loopback (${url})`,
      undefined,
      {
        fix: 'serve it with --tls-cert and --tls-key, and give --public-url https://…',
      },
    );
  return u;
}

/**
 * The forwarder of one host: `Snap` and `Event` are the server's snapshot and event shapes (the
 * owner sends its own server's; this layer only carries them).
 */
export class PeerLinks<Snap = unknown, Event = unknown> {
  private readonly links = new Map<string, Promise<Link>>();
  private caps: Promise<CapsModule> | undefined;

  constructor(private readonly o: PeerLinksOptions) {}

  private async connect(owner: FleetOwner): Promise<Link> {
    const base = baseUrl(owner, this.o.store.fleetHosts.get(owner.id)?.url);
    const res = await fetch(new URL(this.o.paths.pair, base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(pairRequest(this.o.identity, owner.id)),
    }).catch((err: unknown) => {
      throw new FleetError('peer_unreachable', `host ${owner.name} cannot be reached: ${String(err)}`);
    });
    const body = (await res.json().catch(() => ({}))) as { ref?: string; message?: string };
    if (!res.ok || typeof body.ref !== 'string')
      throw new FleetError('peer_unreachable', `host ${owner.name} refused to pair: ${body.message ?? res.status}`);
    // Loaded on first use: the caps client locks the process down (SES).
    const caps = await (this.caps ??= import('../caps/client.js'));
    const ws = new URL(this.o.paths.captp, base);
    ws.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
    const client = await caps.connectCaps<CapsPeer<unknown>>(ws.href, body.ref, {
      headers: { [this.o.paths.refHeader]: body.ref },
      // A prompt's images go out and come back in its events: frames as large as the owner takes from a peer.
      maxPayload: this.o.maxFrameBytes,
      onError: (err) => this.o.logger?.debug('fleet: peer connection error', { host: owner.name, error: String(err) }),
    });
    this.o.logger?.info('fleet: connected to a peer host', { host: owner.name });
    return { client, sessions: new Map() };
  }

  private link(owner: FleetOwner): Promise<Link> {
    let p = this.links.get(owner.id);
    if (!p) {
      p = this.connect(owner);
      this.links.set(owner.id, p);
      const mine = p;
      const forget = () => {
        if (this.links.get(owner.id) === mine) this.links.delete(owner.id);
      };
      // A connection that failed or closed is made again on the next use.
      p.then((l) => l.client.closed.then(forget), forget).catch(() => undefined);
    }
    return p;
  }

  private async session(owner: FleetOwner, sessionId: string): Promise<CapsSession> {
    const l = await this.link(owner);
    let s = l.sessions.get(sessionId);
    if (!s) {
      const caps = await this.caps!;
      s = caps.E(l.client.root).openSession(sessionId) as Promise<CapsSession>;
      l.sessions.set(sessionId, s);
      const mine = s;
      s.catch(() => {
        if (l.sessions.get(sessionId) === mine) l.sessions.delete(sessionId);
      });
    }
    return s;
  }

  /** Runs `fn` on the owner's session; a session object the owner cut (it closed and reopened it) is opened once more. */
  private async on<T>(
    owner: FleetOwner,
    sessionId: string,
    fn: (s: CapsSession, caps: CapsModule) => Promise<T>,
  ): Promise<T> {
    const s = await this.session(owner, sessionId);
    const caps = await this.caps!;
    try {
      return await fn(s, caps);
    } catch (err) {
      // A socket closed for a frame over the limit (1009) would close again on the same call.
      if (!/ref_revoked|closed/.test(String(err)) || /\b1009\b/.test(String(err))) throw err;
      (await this.link(owner)).sessions.delete(sessionId);
      return fn(await this.session(owner, sessionId), caps);
    }
  }

  async prompt(
    owner: FleetOwner,
    sessionId: string,
    blocks: readonly Record<string, unknown>[],
  ): Promise<{ id: string }> {
    this.fits(blocks, 'prompt');
    return this.on(owner, sessionId, async (s, { E }) => {
      const turn = E(s).prompt(blocks);
      // Nobody waits on its result here: its end is an event.
      void E(turn)
        .result()
        .catch(() => undefined);
      return { id: await E(turn).id() };
    });
  }

  /**
   * Refuses what the owner's socket could not carry, before it is sent: the owner would close the
   * whole connection (1009), cutting every session followed over it. A CapTP frame holds the data as
   * a JSON string inside JSON, so a quote or a backslash costs twice what it does in an HTTP body:
   * a body under its 32 MiB can still be over the frame's 40.
   */
  private fits(data: unknown, what: string): void {
    const json = JSON.stringify(data);
    // As a JSON string: two quotes, and a backslash before each quote and backslash (JSON text has no other character to escape).
    let escaped = 0;
    for (let i = 0; i < json.length; i++) {
      const c = json.charCodeAt(i);
      if (c === 0x22 || c === 0x5c) escaped++;
    }
    const bytes = Buffer.byteLength(json) + 2 + escaped;
    if (bytes + FRAME_ENVELOPE_BYTES > this.o.maxFrameBytes)
      throw new FleetError(
        'too_large',
        `this ${what} is ${bytes} bytes on a peer host's socket, over its ${this.o.maxFrameBytes}-byte frame`,
        { bytes, maxFrameBytes: this.o.maxFrameBytes },
        { fix: 'send less text or fewer images at once' },
      );
  }

  async cancel(owner: FleetOwner, sessionId: string): Promise<void> {
    await this.on(owner, sessionId, (s, { E }) => E(s).cancel());
  }

  async setChoice(owner: FleetOwner, sessionId: string, kind: 'model' | 'mode', id: string): Promise<void> {
    await this.on(owner, sessionId, (s, { E }) => (kind === 'model' ? E(s).setModel(id) : E(s).setMode(id)));
  }

  answerPermission(owner: FleetOwner, sessionId: string, requestKey: string, optionId: string) {
    return this.on(owner, sessionId, async (s, { E }) => {
      try {
        return await E(s).answerPermission(requestKey, optionId);
      } catch (err) {
        // The owner no longer holds it pending: answered already (here, there, or by a rule).
        if (/not_found/.test(String(err))) return { ok: false, reason: 'already_answered' };
        throw err;
      }
    });
  }

  async steer(owner: FleetOwner, sessionId: string, body: { text?: string; queued?: string }): Promise<SteerAnswer> {
    this.fits(body, 'steer');
    const l = await this.link(owner);
    const { E } = await this.caps!;
    return E(l.client.root).steer(sessionId, body);
  }

  async snapshot(owner: FleetOwner, sessionId: string): Promise<Snap> {
    const l = await this.link(owner);
    const { E } = await this.caps!;
    return (await E(l.client.root).snapshot(sessionId)) as Snap;
  }

  follow(
    owner: FleetOwner,
    sessionId: string,
    since: number,
    sink: (events: Event[]) => void,
    ended: (err: Error) => void,
  ) {
    return this.on(owner, sessionId, async (s, { E, makeEventSink }) => {
      let done = false;
      this.link(owner)
        .then((l) => l.client.closed)
        .then(() => {
          if (!done) ended(new FleetError('peer_unreachable', `the connection to host ${owner.name} closed`));
        })
        .catch(() => undefined);
      const sub = E(s).subscribe(
        makeEventSink((batch) => {
          // A responder rides on `permission.asked` for caps clients: this host answers by key instead.
          sink(batch.map(({ responder: _r, ...e }) => e as Event));
        }),
        since,
      );
      await sub;
      return () => {
        done = true;
        E(sub)
          .cancel()
          .catch(() => undefined);
      };
    });
  }

  /** Drops the connection to a host (revoked), or all of them. */
  async close(hostId?: string): Promise<void> {
    const ids = hostId === undefined ? [...this.links.keys()] : [hostId];
    await Promise.all(
      ids.map(async (id) => {
        const p = this.links.get(id);
        this.links.delete(id);
        await p?.then((l) => l.client.close()).catch(() => undefined);
      }),
    );
  }
}
