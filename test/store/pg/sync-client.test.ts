import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePgUrl, openSyncPg, type SyncPg } from '../../../src/store/pg/sync-client.js';
import { isTalariaError } from '../../../src/protocol/errors.js';
import { StoreError } from '../../../src/store/errors.js';
import { startCluster, type Cluster } from './cluster.js';

let cluster: Cluster;
const opened: SyncPg[] = [];
const open = (o?: Parameters<typeof openSyncPg>[1]) => {
  const c = openSyncPg(cluster.url, o);
  opened.push(c);
  return c;
};
const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return isTalariaError(e) ? e.code : `not a TalariaError: ${String(e)}`;
  }
  return undefined;
};

beforeAll(() => {
  cluster = startCluster();
});
afterAll(() => {
  for (const c of opened) c.close();
  cluster?.destroy();
});

describe('a synchronous PostgreSQL connection for the store', () => {
  it('runs statements with parameters and returns rows, in order, transactions included', () => {
    const pg = open();
    pg.query('CREATE TABLE t (id serial PRIMARY KEY, v text NOT NULL)');
    expect(pg.query('INSERT INTO t (v) VALUES ($1), ($2) RETURNING id', ['a', "it's"]).rowCount).toBe(2);
    pg.query('BEGIN');
    pg.query('INSERT INTO t (v) VALUES ($1)', ['rolled back']);
    pg.query('ROLLBACK');
    expect(pg.query('SELECT v FROM t ORDER BY id').rows).toEqual([{ v: 'a' }, { v: "it's" }]);
  });

  it("an error of PostgreSQL's is a StoreError with its SQLSTATE, and the connection goes on", () => {
    const pg = open();
    let err: unknown;
    try {
      pg.query('SELEKT 1');
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'store_io', details: { sqlstate: '42601' } });
    expect(pg.query('SELECT 1 AS one').rows).toEqual([{ one: 1 }]);
  });

  it('a slow query gives store_busy at the time limit; while it runs the next fails at once; then all is well', () => {
    const pg = open({ timeoutMs: 300 });
    // Connected first: what is measured below is the query's wait, not the thread's start.
    expect(pg.query('SELECT 1 AS one').rows).toEqual([{ one: 1 }]);
    // Bounds far from the query's 5 s, so a loaded machine cannot blur them: the caller did not
    // wait for the query, and the next call did not wait at all.
    const t0 = Date.now();
    expect(codeOf(() => pg.query('SELECT pg_sleep(5)'))).toBe('store_busy');
    expect(Date.now() - t0).toBeLessThan(3_000);
    const t1 = Date.now();
    expect(codeOf(() => pg.query('SELECT 1'))).toBe('store_busy');
    expect(Date.now() - t1).toBeLessThan(1_000);
    // Once the slow one is answered, the connection is usable again.
    let rows: unknown;
    for (const deadline = Date.now() + 10_000; rows === undefined && Date.now() < deadline;) {
      try {
        rows = pg.query('SELECT 2 AS two').rows;
      } catch (e) {
        if (!(e instanceof StoreError) || e.code !== 'store_busy') throw e;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      }
    }
    expect(rows).toEqual([{ two: 2 }]);
  });

  it('the server stops: queries fail with store_busy without hanging; it starts again: they work', () => {
    const pg = open({ timeoutMs: 3_000, connectTimeoutMs: 500 });
    expect(pg.query('SELECT 1 AS one').rows).toEqual([{ one: 1 }]);
    cluster.stop();
    try {
      const t0 = Date.now();
      expect(codeOf(() => pg.query('SELECT 1'))).toBe('store_busy');
      expect(codeOf(() => pg.query('SELECT 1'))).toBe('store_busy');
      expect(Date.now() - t0).toBeLessThan(3_000);
    } finally {
      cluster.start();
    }
    expect(pg.query('SELECT 3 AS three').rows).toEqual([{ three: 3 }]);
  });

  it('messages name the server without its password', () => {
    expect(describePgUrl('postgres://bob:s3cret@db.example:5433/talaria?sslmode=require')).toBe(
      'postgres://bob@db.example:5433/talaria',
    );
    expect(describePgUrl(cluster.url)).not.toMatch(/s3cret/);
  });
});
