/**
 * The store's SQL port (sql.ts) over a synchronous PostgreSQL connection (sync-client.ts): `?`
 * becomes `$n` once, when a statement is prepared; rows come back with BYTEA as Buffers (they
 * cross from the worker as plain Uint8Arrays); transactions are BEGIN/COMMIT with SAVEPOINTs for
 * nested ones, and `immediate` takes the store's write lock first, as SQLite's BEGIN IMMEDIATE
 * does: the repositories read, then write, under it (a lease, a session's last seq).
 */
import type { SqlDb, SqlRunResult, SqlStatement, SqlTransaction } from '../sql.js';
import { fromPg } from './errors.js';
import type { PgResult, SyncPg } from './sync-client.js';

/** The advisory lock every write transaction takes: one writer at a time, as in a SQLite file. */
export const WRITE_LOCK_KEY = 0x74616c61; // 'tala'

/** `sql` with each `?` outside quotes and comments numbered `$1`, `$2`… */
export function toPositional(sql: string): string {
  let out = '';
  let n = 0;
  for (let i = 0; i < sql.length;) {
    const c = sql[i]!;
    let end = i + 1;
    if (c === "'" || c === '"') {
      // A quote doubles itself inside (standard strings: a backslash is a plain character).
      for (;;) {
        const q = sql.indexOf(c, end);
        if (q < 0) return out + sql.slice(i); /* unterminated: PostgreSQL says so */
        end = q + 1;
        if (sql[end] !== c) break;
        end++;
      }
    } else if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      end = nl < 0 ? sql.length : nl;
    } else if (c === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      end = close < 0 ? sql.length : close + 2;
    } else if (c === '?') {
      out += `$${++n}`;
      i = end;
      continue;
    }
    out += sql.slice(i, end);
    i = end;
  }
  return out;
}

/** better-sqlite3 binds an array argument as its elements (wire-log's multi-row insert passes one). */
function flat(params: readonly unknown[]): unknown[] {
  return params.some(Array.isArray) ? params.flatMap((p) => (Array.isArray(p) ? (p as unknown[]) : [p])) : [...params];
}

function withBuffers(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  for (const r of rows)
    for (const k in r) {
      const v = r[k];
      if (v instanceof Uint8Array && !Buffer.isBuffer(v)) r[k] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    }
  return rows;
}

export interface PgSqlDb extends SqlDb {
  readonly dialect: 'postgres';
  /** Runs `sql` as it is ($n parameters). */
  query(sql: string, values?: readonly unknown[]): PgResult;
  readonly inTransaction: boolean;
}

let statements = 0;

export function pgSqlDb(conn: SyncPg): PgSqlDb {
  let depth = 0;
  /** A transaction could not be ended (the connection stalled): end it before anything else runs. */
  let unended = false;

  function query(text: string, values: readonly unknown[] = [], name?: string): PgResult {
    try {
      if (unended) {
        conn.query('ROLLBACK');
        unended = false;
      }
      return conn.query(text, values, name);
    } catch (err) {
      throw fromPg(err, conn.where);
    }
  }

  function prepare(sql: string): SqlStatement {
    const text = toPositional(sql);
    const name = `t${++statements}`; // unique in the process: stores may share a connection (tests)
    const rows = (params: unknown[]) => withBuffers(query(text, flat(params), name).rows);
    return {
      run: (...params: unknown[]): SqlRunResult => ({ changes: query(text, flat(params), name).rowCount }),
      get: (...params: unknown[]) => rows(params)[0],
      all: (...params: unknown[]) => rows(params),
      iterate: (...params: unknown[]) => rows(params)[Symbol.iterator](),
    };
  }

  function run<F extends (...args: never[]) => unknown>(fn: F, args: Parameters<F>, lock: boolean): ReturnType<F> {
    const top = depth === 0;
    const sp = `sp${depth}`;
    try {
      query(top ? (lock ? `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})` : 'BEGIN') : `SAVEPOINT ${sp}`);
    } catch (err) {
      // BEGIN may have run before the lock wait failed: roll back before the next statement.
      if (top) unended = true;
      throw err;
    }
    depth++;
    let result: ReturnType<F>;
    try {
      result = fn(...args) as ReturnType<F>;
    } catch (err) {
      depth--;
      try {
        query(top ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT ${sp}; RELEASE SAVEPOINT ${sp}`);
      } catch {
        // The connection failed under us: roll back before the next statement (the error that matters is `err`).
        if (top) unended = true;
      }
      throw err;
    }
    depth--;
    try {
      query(top ? 'COMMIT' : `RELEASE SAVEPOINT ${sp}`);
    } catch (err) {
      if (top) unended = true;
      throw err;
    }
    return result;
  }

  const db = {
    dialect: 'postgres' as const,
    get inTransaction() {
      return depth > 0;
    },
    query: (sql: string, values?: readonly unknown[]) => query(sql, values),
    prepare,
    exec(sql: string) {
      query(sql);
      return db;
    },
    transaction<F extends (...args: never[]) => unknown>(fn: F): SqlTransaction<F> {
      const tx = (...args: Parameters<F>) => run(fn, args, false);
      tx.immediate = (...args: Parameters<F>) => run(fn, args, true);
      return tx as unknown as SqlTransaction<F>;
    },
  };
  return db as unknown as PgSqlDb;
}
