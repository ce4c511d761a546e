/**
 * The caps face's references (caps_refs, migration 006) and this home's host key (caps_host).
 * Rows only: what a reference may do, narrowing and what revocation means live in src/caps/refs.ts.
 */
import type { SqlDb } from './sql.js';

/** One stored reference as written (its own expiry and revocation, not its chain's). */
export interface StoredRef {
  id: string;
  /** Hex SHA-256 of the bearer secret (the secret itself is never stored). */
  hash: string;
  kind: string;
  facet: string;
  target: string;
  methods: string[];
  expiresAt: number | undefined;
  parentId: string | undefined;
  label: string | undefined;
  createdAt: number;
  revokedAt: number | undefined;
}

/** A row and its ancestors: how many there are, the earliest expiry and revocation among them. */
export interface RefChain {
  n: number;
  expiresAt: number | undefined;
  revokedAt: number | undefined;
}

interface Row {
  id: string;
  hash: string;
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

const toRef = (r: Row): StoredRef => ({
  id: r.id,
  hash: r.hash,
  kind: r.kind,
  facet: r.facet,
  target: r.target,
  methods: JSON.parse(r.methods) as string[],
  expiresAt: r.expires_at ?? undefined,
  parentId: r.parent_id ?? undefined,
  label: r.label ?? undefined,
  createdAt: r.created_at,
  revokedAt: r.revoked_at ?? undefined,
});

export type CapsRefsRepo = ReturnType<typeof createCapsRefsRepo>;

export function createCapsRefsRepo(db: SqlDb) {
  const chain = db.prepare<[string], { n: number; expires_at: number | null; revoked_at: number | null }>(
    `WITH RECURSIVE chain(id, parent_id, expires_at, revoked_at) AS (
       SELECT id, parent_id, expires_at, revoked_at FROM caps_refs WHERE id = ?
       UNION ALL SELECT p.id, p.parent_id, p.expires_at, p.revoked_at FROM caps_refs p JOIN chain c ON p.id = c.parent_id)
     SELECT COUNT(*) AS n, MIN(expires_at) AS expires_at, MIN(revoked_at) AS revoked_at FROM chain`,
  );
  const hostKey = db.prepare<[], { host_key: string }>('SELECT host_key FROM caps_host WHERE id = 1');
  const putHostKey = db.prepare('INSERT INTO caps_host (id, host_key) VALUES (1, ?) ON CONFLICT DO NOTHING');
  const hasControllerMethods = db.prepare<[string], unknown>(
    "SELECT 1 FROM caps_refs WHERE facet = 'controller' AND methods = ? LIMIT 1",
  );
  const setControllerMethods = db.prepare(
    "UPDATE caps_refs SET methods = ? WHERE facet = 'controller' AND methods = ?",
  );
  const insert = db.prepare(
    'INSERT INTO caps_refs (id, hash, kind, facet, target, methods, expires_at, parent_id, label, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare<[string], Row>('SELECT * FROM caps_refs WHERE id = ?');
  const byHash = db.prepare<[string], Row>('SELECT * FROM caps_refs WHERE hash = ?');
  const all = db.prepare<[], Row>('SELECT * FROM caps_refs ORDER BY created_at, id');
  const liveTree = db.prepare<[string], { id: string }>(
    `WITH RECURSIVE tree(id) AS (SELECT CAST(? AS TEXT) UNION ALL SELECT c.id FROM caps_refs c JOIN tree t ON c.parent_id = t.id)
     SELECT caps_refs.id FROM caps_refs JOIN tree USING (id) WHERE revoked_at IS NULL`,
  );
  const setRevoked = db.prepare('UPDATE caps_refs SET revoked_at = ? WHERE id = ?');
  // One transaction: a revocation never leaves part of a tree live.
  const revokeTree = db.transaction((id: string, at: number): string[] => {
    const ids = liveTree.all(id).map((r) => r.id);
    for (const r of ids) setRevoked.run(at, r);
    return ids;
  });

  return {
    /** This home's host key, once one was stored. */
    hostKey(): string | undefined {
      return hostKey.get()?.host_key;
    },
    /** Stores `key` as the host key unless one is stored already. */
    setHostKey(key: string): void {
      putHostKey.run(key);
    },
    /** Rewrites the methods of controllers that list exactly `from` (JSON) to `to`. */
    replaceControllerMethods(from: string, to: string): void {
      if (hasControllerMethods.get(from)) setControllerMethods.run(to, from);
    },
    insert(r: Omit<StoredRef, 'revokedAt'>): void {
      insert.run(
        r.id,
        r.hash,
        r.kind,
        r.facet,
        r.target,
        JSON.stringify(r.methods),
        r.expiresAt ?? null,
        r.parentId ?? null,
        r.label ?? null,
        r.createdAt,
      );
    },
    get(id: string): StoredRef | undefined {
      const r = byId.get(id);
      return r && toRef(r);
    },
    getByHash(hash: string): StoredRef | undefined {
      const r = byHash.get(hash);
      return r && toRef(r);
    },
    /** Every reference, oldest first. */
    list(): StoredRef[] {
      return all.all().map(toRef);
    },
    /** The row `id` and its ancestors (n = 0: no such row). */
    chain(id: string): RefChain {
      const c = chain.get(id)!;
      return { n: c.n, expiresAt: c.expires_at ?? undefined, revokedAt: c.revoked_at ?? undefined };
    },
    /** Marks `id` and every descendant not revoked yet as revoked at `at`; returns their ids. */
    revokeTree(id: string, at: number): string[] {
      return revokeTree.immediate(id, at);
    },
  };
}
