/**
 * What the server needs of a fleet (docs/fleet.md §2), defined here so the server never imports
 * src/fleet (that would load caps' lockdown into every server): `talaria serve` passes an
 * implementation when its store is PostgreSQL. The server reports its live sessions' status
 * (from the hub's session updates) and lists every host's sessions with their host and status.
 */
import type { FleetStatus, SessionSummaryInfo } from './contract/index.js';
import type { Duplex } from 'node:stream';
import { TalariaError } from '../protocol/errors.js';
import { HttpError } from './http-error.js';
import { promptBlocks } from './prompt-queue.js';
import type { Logger } from '../protocol/types.js';
import type { Hub, LiveSession } from './hub.js';
import type { FleetForward, FleetOwner, RemoteSession } from './hub-remote.js';
import type { TokenIdentity } from './tokens.js';

export type { FleetForward, FleetOwner } from './hub-remote.js';

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
  /**
   * Control goes to the owner (docs/fleet.md §3): set once this host serves and reaches its peers
   * (read per request). Absent: a session another live host owns is refused, never taken over.
   */
  peers?: FleetPeers | undefined;
}

export interface FleetPeers {
  /** Another host's signed pair request → the reference minted for it (throws a refusal). */
  pair(body: unknown): { ref: string };
  /** The peer a reference presented on `/captp` was minted for, when this host minted it and that host is in good standing. */
  peerOf(ref: string): { hostId: string; name: string } | undefined;
  /** Runs when a peer host was revoked (its references are revoked already): its connections close. */
  onPeerRevoked(fn: (hostId: string) => void): () => void;
  /** The other live host that owns `sessionId`, if one does. */
  ownerOf(sessionId: string): FleetOwner | undefined;
  /** Forwarding to owners; absent: refuse (session_owned_elsewhere). */
  forward?: FleetForward | undefined;
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

/**
 * The owner and the forwarder when another live host owns `sessionId`; undefined when none does
 * (this host may open it). Nothing to forward with (or an operation not forwarded: `forwarded:
 * false`): `session_owned_elsewhere`, never a takeover.
 */
export function ownedElsewhere(
  fleet: ServerFleet | undefined,
  sessionId: string,
  o: { forwarded?: boolean } = {},
): { owner: FleetOwner; forward: FleetForward; id: string } | undefined {
  const peers = fleet?.peers;
  const owner = peers?.ownerOf(sessionId);
  if (!owner) return undefined;
  if (peers?.forward && o.forwarded !== false) return { owner, forward: answered(peers.forward), id: sessionId };
  throw new TalariaError(
    'session_owned_elsewhere',
    `session ${sessionId} is live on host ${owner.name}: ${o.forwarded === false ? 'this is not forwarded to it yet' : 'this host does not forward to it'}`,
    { sessionId, host: owner.id, hostName: owner.name },
  );
}

type Remote = NonNullable<ReturnType<typeof ownedElsewhere>>;

/**
 * A prompt to the owner, its images too (peer sockets take frames as large as an HTTP body:
 * PEER_MAX_FRAME_BYTES); the owner's queue position is not carried.
 */
export async function forwardPrompt(r: Remote, b: { text: string; images: { mimeType: string; data: string }[] }) {
  return { ...(await r.forward.prompt(r.owner, r.id, promptBlocks(b.text, b.images))), queued: false, position: 0 };
}

/**
 * The largest frame on a peer host's `/captp` socket, both ways: a forwarded prompt carries its
 * images (an HTTP body is at most 32 MiB, base64 inside JSON) and its events carry them back. A
 * token holder's socket keeps the caps face's 1 MiB.
 */
export const PEER_MAX_FRAME_BYTES = 40 * 1024 * 1024;

/** A socket admitted as a peer host (PeerSockets.admit names it so). */
export const isPeerIdentity = (i: TokenIdentity): boolean => i.id.startsWith('peer:');

/** A permission answer to the owner, whose broker decides which answer came first, across hosts. */
export async function forwardAnswer(
  r: Remote,
  key: string,
  body: { optionId: string; rule?: unknown } | { cancel: true },
  by: string,
): Promise<{ answeredBy: string }> {
  if (!('optionId' in body) || body.rule)
    throw new HttpError('invalid_argument', 'answer a session of another host with one of its options (no rule)');
  const a = await r.forward.answerPermission(r.owner, r.id, key, body.optionId);
  if (!a.ok && a.reason === 'not_offered')
    throw new HttpError(
      'invalid_argument',
      `option ${body.optionId} was not offered`,
      "Answer with one of the request's options.",
    );
  if (!a.ok) throw new HttpError('conflict', 'already answered by someone else', undefined, { answeredBy: undefined });
  return { answeredBy: by };
}

/** The `/ws` hook: a session another live host owns, followed there when this host forwards (else read here). */
export function remoteOf(fleet: ServerFleet | undefined, sessionId: string): RemoteSession | undefined {
  try {
    return ownedElsewhere(fleet, sessionId);
  } catch {
    return undefined;
  }
}

/**
 * The forwarder's refusals as HTTP: an owner that cannot be reached (`peer_unreachable`) is a 503,
 * a message over a peer socket's frame (`too_large`) a 413, each saying so with its fix.
 */
function asHttp(err: unknown): unknown {
  // By its code: the fleet layer is loaded on demand (it locks the process down), never imported here.
  const e = err as { code?: unknown; message?: unknown; fix?: unknown };
  const fix = typeof e.fix === 'string' ? e.fix : undefined;
  if (e.code === 'peer_unreachable') return new HttpError('unavailable', String(e.message), fix);
  if (e.code === 'too_large') return new HttpError('too_large', String(e.message), fix);
  return err;
}

function answered(f: FleetForward): FleetForward {
  const as = <T>(p: Promise<T>): Promise<T> =>
    p.catch((err: unknown) => {
      throw asHttp(err);
    });
  return {
    prompt: (...a) => as(f.prompt(...a)),
    cancel: (...a) => as(f.cancel(...a)),
    setChoice: (...a) => as(f.setChoice(...a)),
    steer: (...a) => as(f.steer(...a)),
    answerPermission: (...a) => as(f.answerPermission(...a)),
    snapshot: (...a) => as(f.snapshot(...a)),
    follow: (owner, id, since, sink, ended) =>
      as(f.follow(owner, id, since, sink, (err) => ended(asHttp(err) as Error))),
  };
}

/** Largest pair request read (a few hundred bytes in practice). */
const MAX_PAIR_BYTES = 8 * 1024;

const answer = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/**
 * `POST /fleet/pair`: another host's signed request for a reference (no token: the signature,
 * checked against that host's row in the shared database, is the authority). 403 with the reason
 * when refused; 404 when this host does not serve peers.
 */
export async function pairAnswer(req: Request, fleet: ServerFleet, logger: Logger): Promise<Response> {
  const peers = fleet.peers;
  if (!peers) return answer(404, { code: 'not_found', message: 'this host does not pair with other hosts' });
  if (req.method !== 'POST') return answer(405, { code: 'invalid_argument', message: 'POST a pair request' });
  const text = await req.text();
  if (text.length > MAX_PAIR_BYTES) return answer(413, { code: 'too_large', message: 'a pair request is small' });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return answer(400, { code: 'invalid_body', message: 'a pair request is JSON' });
  }
  try {
    return answer(200, peers.pair(body));
  } catch (err) {
    if ((err as { code?: unknown }).code === 'pair_refused')
      return answer(403, { code: 'forbidden', message: (err as Error).message });
    logger.error('serve: a pair request failed', { error: err instanceof Error ? err.message : String(err) });
    return answer(500, { code: 'internal', message: 'the pair request failed' });
  }
}

/** The sockets of peer hosts on `/captp`, cut at once when their host is revoked. */
export class PeerSockets {
  private readonly byHost = new Map<string, Set<Duplex>>();
  private watching: FleetPeers | undefined;
  private off: (() => void) | undefined;

  /** The identity a peer's socket goes on with, when its reference is good (the socket is then cut on its revocation). */
  admit(fleet: ServerFleet | undefined, ref: string, socket: Duplex): TokenIdentity | undefined {
    const peers = fleet?.peers;
    const peer = peers?.peerOf(ref);
    if (!peers || !peer) return undefined;
    this.add(peers, peer.hostId, socket);
    return { id: `peer:${peer.hostId}`, role: 'controller', label: `host ${peer.name}` };
  }

  private add(peers: FleetPeers, hostId: string, socket: Duplex): void {
    if (this.watching !== peers) {
      this.off?.();
      this.watching = peers;
      this.off = peers.onPeerRevoked((id) => this.cut(id));
    }
    let set = this.byHost.get(hostId);
    if (!set) this.byHost.set(hostId, (set = new Set()));
    set.add(socket);
    socket.once('close', () => set.delete(socket));
  }

  cut(hostId: string): void {
    for (const s of this.byHost.get(hostId) ?? []) s.destroy();
    this.byHost.delete(hostId);
  }

  close(): void {
    this.off?.();
  }
}
