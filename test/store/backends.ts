/**
 * The store's two backends for one suite: `describe.each(BACKENDS)` runs a behaviour test on
 * SQLite (a fresh temp home) and on PostgreSQL (a fresh schema in one throwaway cluster per test
 * file, started on first use and destroyed after the file). PostgreSQL's side fails, never skips,
 * when the server is not installed.
 *
 * Speed: the PostgreSQL stores of a file share one connection (a connection's worker thread costs
 * ~0.35 s to start under tsx; a fresh schema and its migration ~25 ms, a database from a migrated
 * template ~50 ms plus a connection), each store on a schema of its own via search_path.
 */
import { afterFile } from '../file-end.js';
import { openStore, type Store, type StoreOptions } from '../../src/store/index.js';
import { openSyncPg, type SyncPg } from '../../src/store/pg/sync-client.js';
import { toPositional } from '../../src/store/pg/sql-pg.js';
import { rawDb } from '../../src/store/sqlite.js';
import { freshStore, tempHome } from './helpers.js';
import { startCluster, type Cluster } from './pg/cluster.js';

export interface Backend {
  name: 'sqlite' | 'postgres';
  /** A new, empty store (closed after the file's tests unless closed earlier). */
  fresh(opts?: StoreOptions): Store;
  /** Another store on the same data as `store` (a second process, or a reopen after close). */
  again(store: Store, opts?: StoreOptions): Store;
  /** Raw SQL (`?` parameters) on the store's database, for a test that looks under the repositories. */
  sql(store: Store, text: string, ...params: unknown[]): Record<string, unknown>[];
}

let cluster: Cluster | undefined;
let conn: SyncPg | undefined;
let schemas = 0;
const where = new WeakMap<Store, string>();
const opened: Store[] = [];

afterFile(() => {
  try {
    for (const s of opened.splice(0)) s.close();
    conn?.close();
  } finally {
    // Whatever failed above, the server does not outlive the file.
    conn = undefined;
    current = undefined;
    cluster?.destroy();
    cluster = undefined;
  }
});

function pg(): { url: string; conn: SyncPg } {
  cluster ??= startCluster();
  conn ??= openSyncPg(cluster.url);
  return { url: cluster.url, conn };
}

function openPg(schema: string, opts: StoreOptions): Store {
  const { url, conn } = pg();
  use(schema);
  const s = onSchema(openStore({ ...opts, url, connection: conn }), schema);
  where.set(s, schema);
  opened.push(s);
  return s;
}

/** The schema the shared connection is on. */
let current: string | undefined;
function use(schema: string): void {
  if (current === schema) return;
  pg().conn.query(`SET search_path TO ${schema}`);
  current = schema;
}

/** `s` with every call made on its own schema (two stores of one test take turns on the connection). */
function onSchema(s: Store, schema: string): Store {
  const calls = <T extends object>(o: T, deep: boolean): T =>
    new Proxy(o, {
      get(target, key) {
        const v = Reflect.get(target, key) as unknown;
        if (typeof v === 'function')
          return (...args: unknown[]) => {
            if (key !== 'close') use(schema);
            return (v as (...a: unknown[]) => unknown).apply(target, args);
          };
        return deep && typeof v === 'object' && v !== null ? calls(v, false) : v;
      },
    });
  return calls(s, true);
}

export const BACKENDS: Backend[] = [
  {
    name: 'sqlite',
    fresh: (opts = {}) => freshStore(opts),
    again: (store, opts = {}) => {
      const s = openStore({ path: store.path, ...opts });
      opened.push(s);
      return s;
    },
    sql(store, text, ...params) {
      const st = rawDb(store).prepare(text);
      if (st.reader) return st.all(...params) as Record<string, unknown>[];
      st.run(...params);
      return [];
    },
  },
  {
    name: 'postgres',
    fresh(opts = {}) {
      const schema = `t${++schemas}`;
      pg().conn.query(`CREATE SCHEMA ${schema}`);
      return openPg(schema, opts);
    },
    again(store, opts = {}) {
      const schema = where.get(store);
      if (!schema) throw new Error('not a store of this backend');
      return openPg(schema, opts);
    },
    sql(store, text, ...params) {
      const schema = where.get(store);
      if (!schema) throw new Error('not a store of this backend');
      use(schema);
      return pg().conn.query(toPositional(text), params).rows;
    },
  },
];

export { tempHome };
