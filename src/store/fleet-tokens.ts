/**
 * Join tokens of a fleet (fleet_join_tokens, migration 013): rows only, by the token's SHA-256
 * (the token itself is never stored). Whether one admits a host is src/fleet/join.ts's to say.
 */
import type { SqlDb } from './sql.js';

export interface FleetTokenRow {
  id: string;
  /** SHA-256 of the token, hex. */
  tokenHash: string;
  label: string | undefined;
  createdAt: number;
  expiresAt: number;
  /** Hosts that joined with it. */
  uses: number;
  lastUsedAt: number | undefined;
}

interface Row {
  id: string;
  token_hash: string;
  label: string | null;
  created_at: number;
  expires_at: number;
  uses: number;
  last_used_at: number | null;
}

const toToken = (r: Row): FleetTokenRow => ({
  id: r.id,
  tokenHash: r.token_hash,
  label: r.label ?? undefined,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  uses: Number(r.uses),
  lastUsedAt: r.last_used_at === null ? undefined : Number(r.last_used_at),
});

export type FleetTokensRepo = ReturnType<typeof createFleetTokensRepo>;

export function createFleetTokensRepo(db: SqlDb) {
  const insert = db.prepare(
    'INSERT INTO fleet_join_tokens (id, token_hash, label, created_at, expires_at, uses) VALUES (?, ?, ?, ?, ?, 0)',
  );
  const byHash = db.prepare<[string], Row>('SELECT * FROM fleet_join_tokens WHERE token_hash = ?');
  const used = db.prepare('UPDATE fleet_join_tokens SET uses = uses + 1, last_used_at = ? WHERE id = ?');
  const all = db.prepare<[], Row>('SELECT * FROM fleet_join_tokens ORDER BY created_at, id');
  return {
    add(t: Omit<FleetTokenRow, 'uses' | 'lastUsedAt'>): void {
      insert.run(t.id, t.tokenHash, t.label ?? null, t.createdAt, t.expiresAt);
    },
    byHash(hash: string): FleetTokenRow | undefined {
      const r = byHash.get(hash);
      return r && toToken(r);
    },
    /** A host joined with it. */
    used(id: string, at: number): void {
      used.run(at, id);
    },
    list(): FleetTokenRow[] {
      return all.all().map(toToken);
    },
  };
}
