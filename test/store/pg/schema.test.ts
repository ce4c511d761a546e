/**
 * The two schemas cannot drift: SQLite's (its migrations applied) and PostgreSQL's (its own list)
 * have the same tables, columns in the same order with matching types and nullability, the same
 * primary keys, unique columns, named indexes and foreign keys. Read from sqlite_master and the
 * pragmas on one side, information_schema, pg_indexes and pg_constraint on the other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, openStore } from '../../../src/store/index.js';
import { PG_MIGRATIONS } from '../../../src/store/pg/migrations/index.js';
import { openSyncPg, type SyncPg } from '../../../src/store/pg/sync-client.js';
import { rawDb } from '../../../src/store/sqlite.js';
import { startCluster, type Cluster } from './cluster.js';

let cluster: Cluster;
let pg: SyncPg;
beforeAll(() => {
  cluster = startCluster();
  openStore({ url: cluster.url }).close();
  pg = openSyncPg(cluster.url);
});
afterAll(() => {
  try {
    pg?.close();
  } finally {
    cluster?.destroy();
  }
});

/** SQLite's declared type → the PostgreSQL types it may be. */
const TYPES: Record<string, string[]> = {
  TEXT: ['text'],
  INTEGER: ['integer', 'bigint'],
  REAL: ['double precision'],
  BLOB: ['bytea'],
};
/** Differences on purpose (each says why in pg/migrations/010-schema.ts). */
const PG_ONLY_COLUMNS = ['session_branches.rowid']; // SQLite's implicit rowid, made explicit
const TYPE_EXCEPTIONS: Record<string, string> = {
  // started_at may be ended_at − duration_ms, a fraction (SQLite keeps it as a REAL in the INTEGER column).
  'turns.started_at': 'double precision',
  'turns.ended_at': 'double precision',
};
const DELETE_RULE: Record<string, string> = { a: 'NO ACTION', c: 'CASCADE', n: 'SET NULL', r: 'RESTRICT' };

interface Column {
  name: string;
  /** The types it may be in PostgreSQL (SQLite), the one it is (PostgreSQL). */
  types: string[];
  notNull: boolean;
}

interface Schema {
  columns: Column[];
  primaryKeys: string[];
  unique: string[];
  indexes: string[];
  foreignKeys: string[];
}

function sqliteSchema(): Schema {
  const s = openStore({ path: ':memory:' });
  const db = rawDb(s);
  const all = <T>(sql: string) => db.prepare(sql).all() as T[];
  const tables = all<{ name: string }>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  ).map((t) => t.name);
  const out: Schema = { columns: [], primaryKeys: [], unique: [], indexes: [], foreignKeys: [] };
  for (const t of tables) {
    const cols = all<{ name: string; type: string; notnull: number; pk: number }>(`PRAGMA table_info(${t})`);
    for (const c of cols) {
      const key = `${t}.${c.name}`;
      const types = TYPE_EXCEPTIONS[key] ? [TYPE_EXCEPTIONS[key]] : TYPES[c.type]!;
      // A primary key is NOT NULL in PostgreSQL whether said or not.
      out.columns.push({ name: key, types, notNull: c.notnull === 1 || c.pk > 0 });
    }
    out.primaryKeys.push(
      `${t}(${cols
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name)
        .join(',')})`,
    );
    for (const i of all<{ name: string; origin: string }>(`PRAGMA index_list(${t})`)) {
      const on = all<{ name: string }>(`PRAGMA index_info(${i.name})`).map((c) => c.name);
      if (i.origin === 'u') out.unique.push(`${t}(${on.join(',')})`);
      if (i.origin === 'c') out.indexes.push(`${i.name} ON ${t}(${on.join(',')})`);
    }
    for (const f of all<{ table: string; from: string; to: string; on_delete: string }>(
      `PRAGMA foreign_key_list(${t})`,
    ))
      out.foreignKeys.push(`${t}.${f.from} → ${f.table}.${f.to} ON DELETE ${f.on_delete}`);
  }
  s.close();
  return out;
}

function pgSchema(): Schema {
  const rows = <T>(sql: string) => pg.query(sql).rows as T[];
  const ns = "'public'::regnamespace";
  const cols = rows<{ t: string; c: string; type: string; nullable: string }>(
    `SELECT table_name AS t, column_name AS c, data_type AS type, is_nullable AS nullable
     FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  const keyed = rows<{ t: string; cols: string; p: boolean; u: boolean; name: string }>(
    `SELECT t.relname AS t, ic.relname AS name, i.indisprimary AS p, i.indisunique AS u,
       array_to_string(ARRAY(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY k(n, o)
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o), ',') AS cols
     FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
     WHERE t.relnamespace = ${ns} ORDER BY t.relname, ic.relname`,
  );
  const named = new Set(
    rows<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE schemaname = 'public'").map((r) => r.indexname),
  );
  const fks = rows<{ t: string; c: string; rt: string; rc: string; del: string }>(
    `SELECT cl.relname AS t, a.attname AS c, fcl.relname AS rt, fa.attname AS rc, c.confdeltype AS del
     FROM pg_constraint c JOIN pg_class cl ON cl.oid = c.conrelid JOIN pg_class fcl ON fcl.oid = c.confrelid
     JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
     JOIN pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attnum = c.confkey[1]
     WHERE c.contype = 'f' AND cl.relnamespace = ${ns} ORDER BY cl.relname, a.attname`,
  );
  return {
    columns: cols
      .filter((c) => !PG_ONLY_COLUMNS.includes(`${c.t}.${c.c}`))
      .map((c) => ({ name: `${c.t}.${c.c}`, types: [c.type], notNull: c.nullable === 'NO' })),
    primaryKeys: keyed.filter((k) => k.p).map((k) => `${k.t}(${k.cols})`),
    unique: keyed.filter((k) => k.u && !k.p).map((k) => `${k.t}(${k.cols})`),
    indexes: keyed.filter((k) => !k.u && named.has(k.name)).map((k) => `${k.name} ON ${k.t}(${k.cols})`),
    foreignKeys: fks.map((f) => `${f.t}.${f.c} → ${f.rt}.${f.rc} ON DELETE ${DELETE_RULE[f.del]}`),
  };
}

describe('SQLite and PostgreSQL schemas', () => {
  it('are at the same version', () => {
    const top = (ms: readonly { version: number }[]) => Math.max(...ms.map((m) => m.version));
    expect(top(PG_MIGRATIONS)).toBe(top(MIGRATIONS));
  });

  it('have the same tables, columns (order, types, nullability), keys, indexes and foreign keys', () => {
    const lite = sqliteSchema();
    const pgs = pgSchema();
    // Read, not empty: the comparisons below compare something.
    for (const k of ['columns', 'primaryKeys', 'unique', 'indexes', 'foreignKeys'] as const)
      expect(lite[k].length, k).toBeGreaterThan(1);
    expect(pgs.columns.map((c) => c.name)).toEqual(lite.columns.map((c) => c.name));
    pgs.columns.forEach((c, i) => {
      const want = lite.columns[i]!;
      expect(want.types, c.name).toContain(c.types[0]);
      expect(c.notNull, c.name).toBe(want.notNull);
    });
    const sorted = (xs: string[]) => [...xs].sort();
    expect(sorted(pgs.primaryKeys)).toEqual(sorted(lite.primaryKeys));
    expect(sorted(pgs.unique)).toEqual(sorted(lite.unique));
    expect(sorted(pgs.indexes)).toEqual(sorted(lite.indexes));
    expect(sorted(pgs.foreignKeys)).toEqual(sorted(lite.foreignKeys));
  });
});
