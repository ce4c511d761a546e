/**
 * What is PostgreSQL's own in its store: opening by URL, the address without its password,
 * read-only connections, the schema version checks, migrators serialised by their lock, the
 * write lock of `immediate` transactions, and the recorder committing on the store's connection
 * even when asked for the (SQLite-only) writer thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Frame } from '../../../src/protocol/types.js';
import { createRecorder } from '../../../src/harness/recorder.js';
import { openStore, type Store } from '../../../src/store/index.js';
import { checkStore } from '../../../src/store/check.js';
import { MIGRATE_LOCK_KEY } from '../../../src/store/pg/migrate.js';
import { PG_MIGRATIONS } from '../../../src/store/pg/migrations/index.js';
import { pgSqlDb } from '../../../src/store/pg/sql-pg.js';
import { openSyncPg, type SyncPg } from '../../../src/store/pg/sync-client.js';
import { startCluster, type Cluster } from './cluster.js';

let cluster: Cluster;
let admin: SyncPg;
let dbs = 0;
const opened: Store[] = [];
beforeAll(() => {
  cluster = startCluster();
  admin = openSyncPg(cluster.url);
});
afterAll(() => {
  try {
    for (const s of opened) s.close();
    admin?.close();
  } finally {
    cluster?.destroy();
  }
});

/** A fresh database's URL (`postgresql://` spelling when asked). */
function freshDb(scheme = 'postgres'): string {
  const name = `s${++dbs}`;
  admin.query(`CREATE DATABASE ${name}`);
  return cluster.url.replace('/postgres?', `/${name}?`).replace(/^postgres:/, `${scheme}:`);
}
const open = (o: Parameters<typeof openStore>[0]) => {
  const s = openStore(o);
  opened.push(s);
  return s;
};
const codeOf = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (e) {
    return (e as { code?: unknown }).code;
  }
  return 'no error';
};

/** `fn` once the connection's stalled statement has been answered (store_busy until then). */
function whenAnswered<T>(fn: () => T): T {
  for (const deadline = Date.now() + 10_000; ;) {
    try {
      return fn();
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'store_busy' || Date.now() > deadline) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

/** The newest schema version this build knows. */
const LAST = Math.max(...PG_MIGRATIONS.map((m) => m.version));

describe('the store on PostgreSQL', () => {
  it('opens by postgres:// or postgresql:// URL: path is the password-free address, no home, the newest version', async () => {
    const url = freshDb('postgresql');
    const s = open({ url: url.replace('talaria@', 'talaria:s3cret@') });
    expect(s.path).toMatch(/^postgres:\/\/talaria@\/s\d+\?host=\/tmp\/talaria-pg-/);
    expect(s.path).not.toContain('s3cret');
    expect(s.home).toBeUndefined();
    expect(s.version).toBe(LAST);
    expect(s.readOnly).toBe(false);
    s.checkpoint();
    // The doctor's integrity check is SQLite's (quick_check on a file): not run on a server.
    expect(await checkStore(s, { timeoutMs: 1000 })).toMatchObject({ ok: true, checked: false });
    s.sessions.create({ id: 'x', provider: 'p', cwd: '/' });
    s.close();
    expect(s.closed).toBe(true);
    expect(open({ url }).sessions.get('x')?.id).toBe('x');
    expect(codeOf(() => openStore({ url: 'mysql://x/y' }))).toBe('invalid_argument');
    // A database that is not there is an answer (open_failed), not an outage to wait out.
    expect(codeOf(() => openStore({ url: cluster.url.replace('/postgres?', '/nope?') }))).toBe('open_failed');
  });

  it('readOnly: reads work, every write is refused with store_read_only; an unmigrated database is refused', () => {
    const url = freshDb();
    expect(codeOf(() => openStore({ url, readOnly: true }))).toBe('store_read_only');
    open({ url }).sessions.create({ id: 'x', provider: 'p', cwd: '/' });
    const ro = open({ url, readOnly: true });
    expect(ro.readOnly).toBe(true);
    expect(ro.sessions.get('x')?.provider).toBe('p');
    expect(codeOf(() => ro.sessions.create({ provider: 'p', cwd: '/' }))).toBe('store_read_only');
    expect(codeOf(() => ro.transaction(() => ro.sessions.archive('x')))).toBe('store_read_only');
    expect(ro.sessions.get('x')?.archived).toBe(false);
  });

  it('a schema newer than this Talaria is refused (schema_too_new), also read-only', () => {
    const url = freshDb();
    open({ url }).close();
    const c = openSyncPg(url);
    c.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 0)");
    c.close();
    expect(codeOf(() => openStore({ url }))).toBe('schema_too_new');
    expect(codeOf(() => openStore({ url, readOnly: true }))).toBe('schema_too_new');
  });

  it('migrators take one lock: a second one waits for it; each version is applied once', () => {
    const url = freshDb();
    const holder = openSyncPg(url);
    holder.query(`BEGIN; SELECT pg_advisory_xact_lock(${MIGRATE_LOCK_KEY})`);
    // Another migrator holds the lock: this open waits, and gives up at its time limit.
    expect(codeOf(() => openStore({ url, busyTimeoutMs: 300 }))).toBe('store_busy');
    holder.query('ROLLBACK');
    holder.close();
    let applied: unknown[] = [];
    const logger = {
      info: (_m: string, d?: Record<string, unknown>) => void (applied = (d?.applied as unknown[]) ?? []),
      warn: () => undefined,
      error: () => undefined,
      debug: () => undefined,
    };
    open({ url, logger });
    expect(applied).toEqual(PG_MIGRATIONS.map((m) => m.version));
    const again = open({ url });
    expect(again.version).toBe(LAST);
    const c = openSyncPg(url);
    expect(c.query('SELECT version FROM schema_migrations ORDER BY version').rows).toEqual(
      PG_MIGRATIONS.map((m) => ({ version: m.version })),
    );
    c.close();
  });

  it('an immediate transaction holds the write lock: a lease is taken by one of two stores', () => {
    const url = freshDb();
    const a = open({ url });
    const b = open({ url, busyTimeoutMs: 300 });
    a.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const me = (owner: string) => ({ owner, pid: 1, host: 'h' });
    let during: unknown;
    a.transaction(() => {
      expect(a.leases.acquire('s', me('a'), () => true)).toBeUndefined();
      // b waits for a's write lock (here: until its time limit, as SQLite's busy timeout).
      during = codeOf(() => b.leases.acquire('s', me('b'), () => true));
    });
    expect(during).toBe('store_busy');
    // Once a committed, b's late lock is let go (rolled back before its next statement): both go on.
    expect(whenAnswered(() => b.leases.get('s'))?.owner).toBe('a');
    expect(b.leases.acquire('s', me('b'), () => false)).toBeUndefined();
    expect(a.leases.acquire('s', me('a'), () => true)?.owner).toBe('b');
    expect(a.sessions.touch('s')).toBe(true);
  });

  it("the recorder commits on the store's connection, even when asked for the writer thread", () => {
    const url = freshDb();
    const s = open({ url });
    const other = open({ url });
    s.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const rec = createRecorder(s, { sessionKey: 's', thread: true });
    expect(rec.threaded).toBe(false);
    const raw = (i: number) => JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { i } });
    for (let i = 1; i <= 3; i++)
      rec.onFrame({ t_ms: i + 0.5, dir: 'agent->client', msg: JSON.parse(raw(i)), raw: raw(i) } as Frame);
    rec.flush();
    expect(other.wire.rows('s').map((r) => [r.seq, r.t_ms, r.msg])).toEqual([
      [1, 1.5, raw(1)],
      [2, 2.5, raw(2)],
      [3, 3.5, raw(3)],
    ]);
    rec.close();
  });
});

describe('a connection lost inside a transaction', () => {
  it('fails the transaction (store_busy) and keeps none of it: nothing runs in autocommit on the new connection', () => {
    const url = freshDb();
    const conn = openSyncPg(url, { timeoutMs: 5_000 });
    const db = pgSqlDb(conn);
    db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const pid = db.prepare('SELECT pg_backend_pid() AS pid');
    let err: unknown;
    try {
      db.transaction(() => {
        insert.run(1);
        const { pid: backend } = pid.get() as { pid: number };
        admin.query('SELECT pg_terminate_backend($1)', [backend]);
        // Give the connection's thread time to see the drop, so the next statement would reconnect:
        // the path this test is about (without the wait, the dead connection fails it directly).
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
        insert.run(2);
      })();
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'store_busy' });
    expect(db.prepare('SELECT v FROM t ORDER BY v').all()).toEqual([]);
    // And the connection goes on.
    db.transaction(() => insert.run(3))();
    expect(db.prepare('SELECT v FROM t ORDER BY v').all()).toEqual([{ v: 3 }]);
    conn.close();
  });
});
