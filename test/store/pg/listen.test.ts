import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listenPg, type PgListener } from '../../../src/store/pg/listen.js';
import { openSyncPg, type SyncPg } from '../../../src/store/pg/sync-client.js';
import { startCluster, type Cluster } from './cluster.js';

let cluster: Cluster;
const listeners: PgListener[] = [];
const conns: SyncPg[] = [];

beforeAll(() => {
  cluster = startCluster();
});
afterAll(async () => {
  for (const l of listeners) await l.close();
  for (const c of conns) c.close();
  cluster?.destroy();
});

function sender(): SyncPg {
  const c = openSyncPg(cluster.url, { timeoutMs: 3_000 });
  conns.push(c);
  return c;
}

describe('a change feed from PostgreSQL (LISTEN/NOTIFY)', () => {
  it('delivers committed notifications in order, none from a rolled-back transaction', async () => {
    const got: string[] = [];
    const l = listenPg(cluster.url, 'talaria_t1', { onNotify: (p) => got.push(p) });
    listeners.push(l);
    await l.ready;
    const pg = sender();
    pg.query("SELECT pg_notify('talaria_t1', 'one')");
    pg.query('BEGIN');
    pg.query("SELECT pg_notify('talaria_t1', 'rolled back')");
    pg.query('ROLLBACK');
    pg.query('BEGIN');
    pg.query("SELECT pg_notify('talaria_t1', 'two')");
    pg.query("SELECT pg_notify('other_channel', 'not mine')");
    pg.query('COMMIT');
    await vi.waitFor(() => expect(got).toEqual(['one', 'two']), { timeout: 5_000 });
  });

  it('comes back after the server restarts, says so (resync), and delivers again', async () => {
    const got: string[] = [];
    let resyncs = 0;
    const warned: string[] = [];
    const logger = { debug() {}, info() {}, warn: (m: string) => void warned.push(m), error() {} };
    const l = listenPg(cluster.url, 'talaria_t2', {
      onNotify: (p) => got.push(p),
      onResync: () => resyncs++,
      retryMs: 50,
      maxRetryMs: 200,
      logger,
    });
    listeners.push(l);
    await l.ready;
    expect(l.connected).toBe(true);
    cluster.stop();
    await vi.waitFor(() => expect(l.connected).toBe(false), { timeout: 10_000 });
    expect(warned).toContain('store: change feed lost its connection');
    cluster.start();
    await vi.waitFor(() => expect(resyncs).toBe(1), { timeout: 15_000 });
    expect(l.connected).toBe(true);
    const pg = sender();
    pg.query("SELECT pg_notify('talaria_t2', 'after restart')");
    await vi.waitFor(() => expect(got).toEqual(['after restart']), { timeout: 5_000 });
  });

  it('a callback that throws is logged and the feed goes on', async () => {
    const got: string[] = [];
    const errors: string[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (m: string) => void errors.push(m) };
    const l = listenPg(cluster.url, 'talaria_t3', {
      onNotify: (p) => {
        if (p === 'boom') throw new Error('boom');
        got.push(p);
      },
      logger,
    });
    listeners.push(l);
    await l.ready;
    const pg = sender();
    pg.query("SELECT pg_notify('talaria_t3', 'boom')");
    pg.query("SELECT pg_notify('talaria_t3', 'fine')");
    await vi.waitFor(() => expect(got).toEqual(['fine']), { timeout: 5_000 });
    expect(errors).toEqual(['store: a change feed callback threw']);
    expect(l.connected).toBe(true);
  });

  it('refuses a channel name that is not a plain identifier; close before connecting rejects ready', async () => {
    expect(() => listenPg(cluster.url, 'x; DROP TABLE y', { onNotify() {} })).toThrow(/bad channel name/);
    const l = listenPg('postgres://talaria@/postgres?host=/nonexistent-talaria-dir', 'talaria_t4', {
      onNotify() {},
      retryMs: 20,
    });
    await l.close();
    await expect(l.ready).rejects.toThrow(/closed before it connected/);
    expect(l.connected).toBe(false);
  });
});

describe("the store's notify", () => {
  it('is sent on commit only, through the feed', async () => {
    const { openStore } = await import('../../../src/store/index.js');
    const got: string[] = [];
    const l = listenPg(cluster.url, 'talaria_t9', { onNotify: (p) => got.push(p) });
    listeners.push(l);
    await l.ready;
    const s = openStore({ url: cluster.url });
    try {
      expect(() =>
        s.transaction(() => {
          s.notify('talaria_t9', 'rolled back');
          throw new Error('undo');
        }),
      ).toThrow('undo');
      s.transaction(() => s.notify('talaria_t9', 'in a transaction'));
      s.notify('talaria_t9', 'alone');
      await vi.waitFor(() => expect(got).toEqual(['in a transaction', 'alone']), { timeout: 5_000 });
    } finally {
      s.close();
    }
  });
});
