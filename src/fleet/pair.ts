/**
 * Pairing (docs/fleet.md §3): host A asks host B for a reference of its own, in a request signed
 * with A's host key (identity.ts) that names A, B, a time and a nonce. B checks it against A's row
 * in the shared database (its public key; online; not revoked), the time (fresh) and the nonce
 * (not seen), then mints a peer reference (caps/refs.ts: only its SHA-256 is stored) labelled
 * with A's id. A keeps the secret in memory only. No secret is shared between hosts, and the
 * database alone grants nothing. When A is revoked, B revokes every reference it minted for A
 * (its children, the session controllers, with it) and closes A's connections.
 */
import { randomBytes } from 'node:crypto';
import type { MintInput, Minted, RefRow } from '../caps/refs.js';
import type { Logger } from '../protocol/types.js';
import type { Store } from '../store/index.js';
import { FleetError } from './errors.js';
import { verifyHost, type HostIdentity } from './identity.js';
import { hostOnline } from './view.js';

/** How far a request's time may be from the owner's clock (each way). */
export const PAIR_WINDOW_MS = 60_000;

export interface PairRequest {
  from: string;
  to: string;
  at: number;
  nonce: string;
  signature: string;
}

const signedText = (r: Omit<PairRequest, 'signature'>): string =>
  ['talaria-pair/1', r.from, r.to, String(r.at), r.nonce].join('\n');

/** A's request for a reference from B. */
export function pairRequest(identity: HostIdentity, to: string, at = Date.now()): PairRequest {
  const r = { from: identity.id, to, at, nonce: randomBytes(16).toString('base64url') };
  return { ...r, signature: identity.sign(signedText(r)) };
}

/** What pairing needs of the caps face's references (caps/refs.ts RefStore). */
export interface PairRefs {
  mint(input: MintInput): Minted;
  redeem(ref: string): RefRow;
  list(): RefRow[];
  revoke(id: string): string[];
}

export interface PeerInfo {
  hostId: string;
  name: string;
}

const isRequest = (v: unknown): v is PairRequest => {
  const r = v as Partial<PairRequest> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.from === 'string' &&
    typeof r.to === 'string' &&
    typeof r.at === 'number' &&
    typeof r.nonce === 'string' &&
    r.nonce.length >= 16 &&
    r.nonce.length <= 64 &&
    typeof r.signature === 'string'
  );
};

const refused = (why: string) => new FleetError('pair_refused', `pair refused: ${why}`);

/** The owner's side: answers pair requests, checks presented references, revokes a revoked host's. */
export class PairService {
  /** Nonces seen, with when they stop mattering (a request older than the window is refused anyway). */
  private readonly seen = new Map<string, number>();
  private readonly listeners = new Set<(hostId: string) => void>();

  constructor(
    private readonly o: {
      store: Pick<Store, 'fleetHosts'>;
      hostId: string;
      refs: PairRefs;
      now?: () => number;
      logger?: Logger;
    },
  ) {}

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  /** A pair request → the new reference's URI (the caller's only copy). */
  pair(body: unknown): { ref: string } {
    if (!isRequest(body)) throw refused('not a pair request');
    const at = this.now();
    if (body.to !== this.o.hostId) throw refused('the request names another host');
    if (Math.abs(at - body.at) > PAIR_WINDOW_MS) throw refused('the request is not fresh (check both clocks)');
    const host = this.o.store.fleetHosts.get(body.from);
    if (!host || host.id === this.o.hostId) throw refused('no such host');
    if (!verifyHost(host.publicKey, signedText(body), body.signature)) throw refused('bad signature');
    if (host.revokedAt !== undefined) throw refused(`host ${host.name} is revoked`);
    if (!hostOnline(host, at)) throw refused(`host ${host.name} is not online`);
    for (const [n, until] of this.seen) if (until < at) this.seen.delete(n);
    const key = `${body.from} ${body.nonce}`;
    if (this.seen.has(key)) throw refused('the request was replayed');
    this.seen.set(key, body.at + PAIR_WINDOW_MS);
    // One reference per pair: what A held before (a restart of A lost it) is revoked.
    for (const r of this.minted(body.from)) this.revokeRef(r.id);
    const m = this.o.refs.mint({
      facet: 'peer',
      target: JSON.stringify({ peer: body.from, owner: this.o.hostId }),
      label: `fleet:${body.from}`,
    });
    this.known().set(m.row.id, body.from);
    this.o.logger?.info('fleet: paired with a host', { host: host.name, id: host.id });
    return { ref: m.uri };
  }

  /**
   * The live references this host minted, by id → peer: read from the store once (what it minted
   * before a restart), then kept here, so a sweep on every fleet change reads no reference rows.
   */
  private mintedRefs: Map<string, string> | undefined;

  private known(): Map<string, string> {
    if (this.mintedRefs) return this.mintedRefs;
    const m = new Map<string, string>();
    for (const r of this.o.refs.list()) {
      if (r.facet !== 'peer') continue;
      const t = JSON.parse(r.target) as { peer?: string; owner?: string };
      if (t.owner === this.o.hostId && typeof t.peer === 'string') m.set(r.id, t.peer);
    }
    return (this.mintedRefs = m);
  }

  /** The live references this host minted for `peer` (all of them without one). */
  private minted(peer?: string): { id: string; peer: string }[] {
    return [...this.known()].filter(([, p]) => peer === undefined || p === peer).map(([id, p]) => ({ id, peer: p }));
  }

  private revokeRef(id: string): void {
    this.known().delete(id);
    this.o.refs.revoke(id);
  }

  /** The peer a presented reference stands for, when it is one this host minted and its host is in good standing. */
  peerOf(ref: string): PeerInfo | undefined {
    let row: RefRow;
    try {
      row = this.o.refs.redeem(ref);
    } catch {
      return undefined;
    }
    if (row.facet !== 'peer') return undefined;
    const t = JSON.parse(row.target) as { peer?: string; owner?: string };
    if (t.owner !== this.o.hostId || typeof t.peer !== 'string') return undefined;
    const host = this.o.store.fleetHosts.get(t.peer);
    if (!host || !hostOnline(host, this.now())) return undefined;
    return { hostId: host.id, name: host.name };
  }

  /** Whether a peer host may still act (online, not revoked). */
  peerOk(hostId: string): boolean {
    const h = this.o.store.fleetHosts.get(hostId);
    return h !== undefined && hostOnline(h, this.now());
  }

  /**
   * Revokes the references minted for hosts that were revoked since (a host row changed: run on
   * every fleet change) and tells the listeners, which close those hosts' connections.
   */
  sweep(): string[] {
    const gone = new Set<string>();
    const revoked = new Map<string, boolean>();
    for (const r of this.minted()) {
      let is = revoked.get(r.peer);
      if (is === undefined) revoked.set(r.peer, (is = this.o.store.fleetHosts.get(r.peer)?.revokedAt !== undefined));
      if (!is) continue;
      this.revokeRef(r.id);
      gone.add(r.peer);
    }
    for (const id of gone) {
      this.o.logger?.info('fleet: a revoked host’s references were revoked', { id });
      for (const fn of this.listeners) fn(id);
    }
    return [...gone];
  }

  onPeerRevoked(fn: (hostId: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
