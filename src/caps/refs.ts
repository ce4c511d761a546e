/**
 * Persistent, narrowable, revocable references (the store's caps_refs table, migration 006).
 * A reference is a 256-bit random secret handed to its holder once; only its SHA-256 is stored,
 * so the database alone grants nothing. Children narrow their parent; revoking a row revokes all
 * its descendants (one recursive query) and tells live listeners so open objects are cut at once.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Store } from '../store/index.js';
import { CapsError } from './errors.js';

export type RefKind = 'agent' | 'session' | 'permission' | 'dataspace';
export type RefFacet = 'launcher' | 'controller' | 'reader' | 'responder' | 'observer';

/** What each facet may do at most; a reference lists a subset. */
export const FACET_METHODS: Readonly<Record<RefFacet, readonly string[]>> = {
  launcher: ['newSession', 'openSession', 'info'],
  controller: ['prompt', 'cancel', 'setModel', 'setMode', 'fork', 'share', 'subscribe', 'snapshot', 'info', 'reader'],
  reader: ['subscribe', 'snapshot', 'info', 'share'],
  responder: ['details', 'answer', 'share'],
  observer: ['observe', 'assert', 'retract'],
};

/** Which facets a reference may hand out below itself (always on the same object or one it owns). */
const DERIVES: Readonly<Record<RefFacet, readonly RefFacet[]>> = {
  launcher: ['launcher', 'controller', 'reader'],
  controller: ['controller', 'reader', 'responder'],
  reader: ['reader'],
  responder: ['responder'],
  observer: ['observer'],
};

const FACET_KIND: Readonly<Record<RefFacet, RefKind>> = {
  launcher: 'agent',
  controller: 'session',
  reader: 'session',
  responder: 'permission',
  observer: 'dataspace',
};

export interface RefRow {
  id: string;
  kind: RefKind;
  facet: RefFacet;
  target: string;
  methods: string[];
  expiresAt: number | undefined;
  parentId: string | undefined;
  label: string | undefined;
  createdAt: number;
  revokedAt: number | undefined;
}

export interface MintInput {
  facet: RefFacet;
  target: string;
  /** Default: everything the facet allows (narrowed to the parent's). */
  methods?: readonly string[];
  /** Epoch ms. */
  expiresAt?: number;
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

interface DbRow {
  id: string;
  kind: string;
  facet: string;
  target: string;
  methods: string;
  expires_at: number | null;
  parent_id: string | null;
  label: string | null;
  created_at: number;
  revoked_at: number | null;
}

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

const toRow = (r: DbRow): RefRow => ({
  id: r.id,
  kind: r.kind as RefKind,
  facet: r.facet as RefFacet,
  target: r.target,
  methods: JSON.parse(r.methods) as string[],
  expiresAt: r.expires_at ?? undefined,
  parentId: r.parent_id ?? undefined,
  label: r.label ?? undefined,
  createdAt: r.created_at,
  revokedAt: r.revoked_at ?? undefined,
});

/** `ocapn://<host-key>.talaria/s/<secret>` → the secret (a bare secret passes through). */
export function secretOf(ref: string): string {
  const m = /^ocapn:\/\/[^/]+\/s\/([A-Za-z0-9_-]+)$/.exec(ref);
  return m ? m[1]! : ref;
}

export class RefStore {
  private readonly listeners = new Set<(ids: readonly string[]) => void>();
  readonly hostKey: string;
  private readonly aliveStmt;

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {
    const db = store.db;
    this.aliveStmt = db.prepare('SELECT revoked_at, expires_at FROM caps_refs WHERE id = ?');
    const h = db.prepare('SELECT host_key FROM caps_host WHERE id = 1').get() as { host_key: string } | undefined;
    if (h) this.hostKey = h.host_key;
    else {
      this.hostKey = randomBytes(16).toString('hex');
      db.prepare('INSERT OR IGNORE INTO caps_host (id, host_key) VALUES (1, ?)').run(this.hostKey);
    }
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
    let expiresAt = input.expiresAt;
    if (input.parentId !== undefined) {
      const parent = this.get(input.parentId);
      if (!parent) throw new CapsError('not_found', `no reference ${input.parentId}`);
      this.check(parent);
      // A child narrows: a facet the parent can derive, no method the parent lacks (same facet),
      // no later expiry.
      if (!DERIVES[parent.facet].includes(input.facet)) throw new CapsError('ref_widening', `ref_widening: a ${parent.facet} cannot hand out a ${input.facet}`);
      if (parent.facet === input.facet) {
        if (input.methods === undefined) methods = methods.filter((m) => parent.methods.includes(m));
        const wider = methods.filter((m) => !parent.methods.includes(m));
        if (wider.length) throw new CapsError('ref_widening', `ref_widening: the parent reference does not allow ${wider.join(', ')}`);
      }
      if (parent.expiresAt !== undefined && (expiresAt === undefined || expiresAt > parent.expiresAt)) expiresAt = parent.expiresAt;
    }
    const secret = randomBytes(32).toString('base64url');
    const id = randomUUID();
    const createdAt = this.now();
    this.store.db
      .prepare('INSERT INTO caps_refs (id, hash, kind, facet, target, methods, expires_at, parent_id, label, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(
        id,
        hashSecret(secret),
        FACET_KIND[input.facet],
        input.facet,
        input.target,
        JSON.stringify(methods),
        expiresAt ?? null,
        input.parentId ?? null,
        input.label ?? null,
        createdAt,
      );
    return { row: this.get(id)!, secret, uri: this.uriOf(secret) };
  }

  get(id: string): RefRow | undefined {
    const r = this.store.db.prepare('SELECT * FROM caps_refs WHERE id = ?').get(id) as DbRow | undefined;
    return r && toRow(r);
  }

  /** The id of the reference a secret (or URI) names, live or not (the CLI's `revoke <uri>`). */
  idOf(ref: string): string | undefined {
    return (this.store.db.prepare('SELECT id FROM caps_refs WHERE hash = ?').get(hashSecret(secretOf(ref))) as { id: string } | undefined)?.id;
  }

  /** The row a secret (or `ocapn://` URI) names, if it is live; a clear refusal otherwise. */
  redeem(ref: string): RefRow {
    const r = this.store.db.prepare('SELECT * FROM caps_refs WHERE hash = ?').get(hashSecret(secretOf(ref))) as DbRow | undefined;
    if (!r) throw new CapsError('ref_unknown', 'ref_unknown: no such reference');
    const row = toRow(r);
    this.check(row);
    return row;
  }

  /** Throws when the row is revoked or expired. */
  check(row: RefRow): void {
    if (row.revokedAt !== undefined) throw new CapsError('ref_revoked', 'ref_revoked: this reference was revoked');
    if (row.expiresAt !== undefined && row.expiresAt <= this.now()) throw new CapsError('ref_expired', 'ref_expired: this reference has expired');
  }

  /** Live and unexpired (re-read: a revocation by another process shows here). */
  alive(id: string): boolean {
    const r = this.aliveStmt.get(id) as { revoked_at: number | null; expires_at: number | null } | undefined;
    return r !== undefined && r.revoked_at === null && (r.expires_at === null || r.expires_at > this.now());
  }

  list(o: { includeRevoked?: boolean } = {}): RefRow[] {
    const rows = this.store.db.prepare(`SELECT * FROM caps_refs ${o.includeRevoked ? '' : 'WHERE revoked_at IS NULL'} ORDER BY created_at, id`).all() as DbRow[];
    return rows.map(toRow);
  }

  /** Revokes `id` and every descendant; returns the ids revoked now. Listeners cut live objects. */
  revoke(id: string): string[] {
    if (!this.get(id)) throw new CapsError('not_found', `no reference ${id}`);
    const ids = this.store.transaction(() => {
      const rows = this.store.db
        .prepare(
          `WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT c.id FROM caps_refs c JOIN tree t ON c.parent_id = t.id)
           SELECT caps_refs.id FROM caps_refs JOIN tree USING (id) WHERE revoked_at IS NULL`,
        )
        .all(id) as { id: string }[];
      const upd = this.store.db.prepare('UPDATE caps_refs SET revoked_at = ? WHERE id = ?');
      const at = this.now();
      for (const r of rows) upd.run(at, r.id);
      return rows.map((r) => r.id);
    });
    for (const fn of this.listeners) fn(ids);
    return ids;
  }

  onRevoke(fn: (ids: readonly string[]) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
