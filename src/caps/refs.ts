/**
 * Persistent, narrowable, revocable references (the store's caps_refs table, migration 006).
 * A reference is a 256-bit random secret handed to its holder once; only its SHA-256 is stored,
 * so the database alone grants nothing. Children narrow their parent; revoking a row revokes all
 * its descendants (one recursive query) and tells live listeners so open objects are cut at once.
 * A row is read with its chain: its expiry is the earliest along it and an ancestor's revocation
 * is its own, so no child outlives its parent, even one stored before mint enforced it.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { CapsRefsRepo, Store, StoredRef } from '../store/index.js';
import { CapsError } from './errors.js';

export type RefKind = 'agent' | 'session' | 'permission' | 'dataspace' | 'host';
export type RefFacet = 'launcher' | 'controller' | 'reader' | 'responder' | 'observer' | 'peer';

/** What each facet may do at most; a reference lists a subset. */
export const FACET_METHODS: Readonly<Record<RefFacet, readonly string[]>> = {
  launcher: ['newSession', 'openSession', 'info'],
  controller: [
    'prompt',
    'cancel',
    'setModel',
    'setMode',
    'fork',
    'share',
    'subscribe',
    'snapshot',
    'info',
    'reader',
    'answerPermission',
  ],
  reader: ['subscribe', 'snapshot', 'info', 'share'],
  responder: ['details', 'answer', 'share'],
  observer: ['observe', 'assert', 'retract'],
  /** Another host of the fleet (docs/fleet.md §3): drives the sessions this host owns. */
  peer: ['openSession', 'snapshot', 'steer', 'info'],
};

/** A full controller as stored before answering a permission was a method of its own (any controller could answer). */
const LEGACY_FULL_CONTROLLER = JSON.stringify(FACET_METHODS.controller.filter((m) => m !== 'answerPermission'));

/** Which facets a reference may hand out below itself (always on the same object or one it owns). */
const DERIVES: Readonly<Record<RefFacet, readonly RefFacet[]>> = {
  launcher: ['launcher', 'controller', 'reader'],
  controller: ['controller', 'reader', 'responder'],
  reader: ['reader'],
  responder: ['responder'],
  observer: ['observer'],
  peer: ['controller'],
};

const FACET_KIND: Readonly<Record<RefFacet, RefKind>> = {
  launcher: 'agent',
  controller: 'session',
  reader: 'session',
  responder: 'permission',
  observer: 'dataspace',
  peer: 'host',
};

/**
 * A reference as its chain makes it (the stored row without its hash): `expiresAt` is the earliest
 * along the chain (its own or an ancestor's), `revokedAt` its own revocation or an ancestor's.
 */
export interface RefRow extends Omit<StoredRef, 'hash' | 'kind' | 'facet'> {
  kind: RefKind;
  facet: RefFacet;
}

export interface MintInput {
  facet: RefFacet;
  target: string;
  /** Default: everything the facet allows (narrowed to the parent's). */
  methods?: readonly string[];
  /** Epoch ms, after now. */
  expiresAt?: number;
  /** Milliseconds from now (> 0, finite): what `share({expiresIn})` asks for. Not with `expiresAt`. */
  expiresIn?: number;
  /** The parent reference's id: the child can only narrow it. */
  parentId?: string;
  label?: string;
}

export interface Minted {
  row: RefRow;
  /** The bearer secret (base64url, 43 characters): shown to the holder once, never stored. */
  secret: string;
  uri: string;
}

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

const shown = (v: unknown): string => (typeof v === 'number' ? String(v) : typeof v);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * The expiry a mint asks for, checked: NaN would be stored as NULL (never expires) and escape the
 * parent's clamp (every comparison with NaN is false), Infinity would never expire.
 */
function requestedExpiry(input: MintInput, now: number): number | undefined {
  const { expiresAt, expiresIn } = input;
  if (expiresAt !== undefined && expiresIn !== undefined)
    throw new CapsError('invalid_argument', 'invalid_argument: give expiresAt or expiresIn, not both');
  if (expiresIn !== undefined) {
    if (!finite(expiresIn) || expiresIn <= 0)
      throw new CapsError(
        'invalid_argument',
        `invalid_argument: expiresIn must be a positive, finite number of milliseconds (got ${shown(expiresIn)})`,
      );
    return now + expiresIn;
  }
  if (expiresAt !== undefined && (!finite(expiresAt) || expiresAt <= now))
    throw new CapsError(
      'invalid_argument',
      `invalid_argument: expiresAt must be a finite time (epoch ms) after now (got ${shown(expiresAt)})`,
    );
  return expiresAt;
}

/** `ocapn://<host-key>.talaria/s/<secret>` → the secret (a bare secret passes through). */
export function secretOf(ref: string): string {
  const m = /^ocapn:\/\/[^/]+\/s\/([A-Za-z0-9_-]+)$/.exec(ref);
  return m ? m[1]! : ref;
}

export class RefStore {
  private readonly listeners = new Set<(ids: readonly string[]) => void>();
  readonly hostKey: string;
  private readonly refs: CapsRefsRepo;

  constructor(
    store: Pick<Store, 'capsRefs'>,
    private readonly now: () => number = Date.now,
  ) {
    this.refs = store.capsRefs;
    const stored = this.refs.hostKey();
    if (stored) this.hostKey = stored;
    else {
      this.hostKey = randomBytes(16).toString('hex');
      this.refs.setHostKey(this.hostKey);
    }
    // Unnarrowed controllers minted before answerPermission existed keep answering; narrowed ones lose it.
    this.refs.replaceControllerMethods(LEGACY_FULL_CONTROLLER, JSON.stringify(FACET_METHODS.controller));
  }
  uriOf(secret: string): string {
    return `ocapn://${this.hostKey}.talaria/s/${secret}`;
  }

  mint(input: MintInput): Minted {
    const allowed = FACET_METHODS[input.facet];
    if (!allowed) throw new CapsError('invalid_argument', `unknown facet ${String(input.facet)}`);
    let methods = [...(input.methods ?? allowed)];
    const bad = methods.filter((m) => !allowed.includes(m));
    if (bad.length) throw new CapsError('invalid_argument', `a ${input.facet} has no method ${bad.join(', ')}`);
    let expiresAt = requestedExpiry(input, this.now());
    if (input.parentId !== undefined) {
      const parent = this.get(input.parentId);
      if (!parent) throw new CapsError('not_found', `no reference ${input.parentId}`);
      this.check(parent);
      // A child narrows: a facet the parent can derive, no method the parent lacks (same kind of
      // object: a reader of a controller too), a responder only from who may answer, no later expiry.
      if (!DERIVES[parent.facet].includes(input.facet))
        throw new CapsError('ref_widening', `ref_widening: a ${parent.facet} cannot hand out a ${input.facet}`);
      if (input.facet === 'responder' && parent.facet === 'controller' && !parent.methods.includes('answerPermission'))
        throw new CapsError('ref_widening', 'ref_widening: the parent reference does not allow answerPermission');
      if (FACET_KIND[parent.facet] === FACET_KIND[input.facet]) {
        if (input.methods === undefined) methods = methods.filter((m) => parent.methods.includes(m));
        const wider = methods.filter((m) => !parent.methods.includes(m));
        if (wider.length)
          throw new CapsError('ref_widening', `ref_widening: the parent reference does not allow ${wider.join(', ')}`);
      }
      if (parent.expiresAt !== undefined) expiresAt = Math.min(expiresAt ?? Infinity, parent.expiresAt);
    }
    const secret = randomBytes(32).toString('base64url');
    const id = randomUUID();
    const createdAt = this.now();
    this.refs.insert({
      id,
      hash: hashSecret(secret),
      kind: FACET_KIND[input.facet],
      facet: input.facet,
      target: input.target,
      methods,
      expiresAt,
      parentId: input.parentId,
      label: input.label,
      createdAt,
    });
    return { row: this.get(id)!, secret, uri: this.uriOf(secret) };
  }

  get(id: string): RefRow | undefined {
    const r = this.refs.get(id);
    return r && this.withChain(r);
  }

  /** The row as its chain makes it: the earliest expiry, and any revocation, of it and its ancestors. */
  private withChain(r: StoredRef): RefRow {
    const c = this.refs.chain(r.id);
    return {
      id: r.id,
      kind: r.kind as RefKind,
      facet: r.facet as RefFacet,
      target: r.target,
      methods: r.methods,
      expiresAt: c.expiresAt,
      parentId: r.parentId,
      label: r.label,
      createdAt: r.createdAt,
      revokedAt: c.revokedAt,
    };
  }

  /** The id of the reference a secret (or URI) names, live or not (the CLI's `revoke <uri>`). */
  idOf(ref: string): string | undefined {
    return this.refs.getByHash(hashSecret(secretOf(ref)))?.id;
  }

  /** The row a secret (or `ocapn://` URI) names, if it is live; a clear refusal otherwise. */
  redeem(ref: string): RefRow {
    const r = this.refs.getByHash(hashSecret(secretOf(ref)));
    if (!r) throw new CapsError('ref_unknown', 'ref_unknown: no such reference');
    const row = this.withChain(r);
    this.check(row);
    return row;
  }

  /** Throws when the row is revoked or expired. */
  check(row: RefRow): void {
    if (row.revokedAt !== undefined) throw new CapsError('ref_revoked', 'ref_revoked: this reference was revoked');
    if (row.expiresAt !== undefined && row.expiresAt <= this.now())
      throw new CapsError('ref_expired', 'ref_expired: this reference has expired');
  }

  /** Live and unexpired, ancestors included (re-read: a revocation by another process shows here). */
  alive(id: string): boolean {
    const c = this.refs.chain(id);
    return c.n > 0 && c.revokedAt === undefined && (c.expiresAt === undefined || c.expiresAt > this.now());
  }

  list(o: { includeRevoked?: boolean } = {}): RefRow[] {
    const rows = this.refs.list().map((r) => this.withChain(r));
    return o.includeRevoked ? rows : rows.filter((r) => r.revokedAt === undefined);
  }

  /** Revokes `id` and every descendant; returns the ids revoked now. Listeners cut live objects. */
  revoke(id: string): string[] {
    if (!this.get(id)) throw new CapsError('not_found', `no reference ${id}`);
    const ids = this.refs.revokeTree(id, this.now());
    for (const fn of this.listeners) fn(ids);
    return ids;
  }

  onRevoke(fn: (ids: readonly string[]) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
