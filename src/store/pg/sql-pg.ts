/**
 * The store's SQL port (sql.ts) over a synchronous PostgreSQL connection (sync-client.ts): `?`
 * becomes `$n` once, when a statement is prepared; rows come back with BYTEA as Buffers (they
 * cross from the worker as plain Uint8Arrays); transactions are BEGIN/COMMIT with SAVEPOINTs for
 * nested ones, and `immediate` takes the store's write lock first, as SQLite's BEGIN IMMEDIATE
 * does: the repositories read, then write, under it (a lease, a session's last seq).
 */
import type { SqlDb, SqlRunResult, SqlStatement, SqlTransaction } from '../sql.js';
import { fromPg, PgStatementError } from './errors.js';
import type { PgStatement } from './protocol.js';
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

/** A statement held back (a write in a transaction): sent with the next one whose answer is needed. */
interface Held {
  st: PgStatement;
  /** Its row count, once sent. */
  count?: number;
}

export function pgSqlDb(conn: SyncPg): PgSqlDb {
  let depth = 0;
  /** A transaction could not be ended (the connection stalled): end it before anything else runs. */
  let unended = false;
  /** A savepoint could not be rolled back to: the transaction must not commit. */
  let doomed = false;
  /**
   * Writes in a transaction wait here and go with the next statement whose answer is needed (a
   * read, a count asked for, COMMIT): one round trip to the worker for many (a recorder's commit
   * made ~7 of 0.35 ms each). An error surfaces there, still inside the transaction, which rolls back.
   */
  let held: Held[] = [];

  function query(text: string, values: readonly unknown[] = [], name?: string): PgResult {
    const before = held;
    held = [];
    try {
      if (unended) {
        conn.query('ROLLBACK');
        unended = false;
      }
      const r = conn.query(text, values, name, before.length > 0 ? before.map((h) => h.st) : undefined);
      before.forEach((h, i) => (h.count = r.counts?.[i] ?? 0));
      return r;
    } catch (err) {
      throw fromPg(err, conn.where);
    }
  }

  function flush(): void {
    const last = held.pop();
    if (last) last.count = query(last.st.text, last.st.values, last.st.name).rowCount;
  }

  /** Holds `st` (its values copied now: a caller may reuse its array, as wire-log's multi-row insert does). */
  function hold(st: PgStatement): Held {
    const h: Held = { st };
    held.push(h);
    return h;
  }

  function prepare(sql: string): SqlStatement {
    const text = toPositional(sql);
    const name = `t${++statements}`; // unique in the process: stores may share a connection (tests)
    const rows = (params: unknown[]) => withBuffers(query(text, flat(params), name).rows);
    return {
      run(...params: unknown[]): SqlRunResult {
        if (depth === 0) return { changes: query(text, flat(params), name).rowCount };
        const h = hold({ text, values: flat(params), name });
        return {
          get changes() {
            if (h.count === undefined) flush();
            return h.count ?? 0;
          },
        };
      },
      get: (...params: unknown[]) => rows(params)[0],
      all: (...params: unknown[]) => rows(params),
      iterate: (...params: unknown[]) => rows(params)[Symbol.iterator](),
    };
  }

  /** Back to a savepoint; one that cannot be rolled back to dooms its transaction (the error that matters is the caller's). */
  function undo(sql: string): void {
    held = [];
    try {
      query(sql);
    } catch {
      doomed = true;
    }
  }

  function rollBack(): void {
    held = [];
    try {
      query('ROLLBACK');
    } catch {
      unended = true; // the connection failed under us: roll back before the next statement
    }
  }

  function run<F extends (...args: never[]) => unknown>(fn: F, args: Parameters<F>, lock: boolean): ReturnType<F> {
    const top = depth === 0;
    const sp = `sp${depth}`;
    if (top) doomed = false;
    // Held, not sent: a transaction that only reads costs nothing more, one that writes goes in one message.
    const start = hold({ text: top ? 'BEGIN' : `SAVEPOINT ${sp}`, values: [] });
    if (top && lock) hold({ text: `SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`, values: [] });
    depth++;
    let result: ReturnType<F>;
    try {
      result = fn(...args) as ReturnType<F>;
      if (top && doomed) throw new PgStatementError('a nested transaction could not be rolled back', 'PG_25P02');
    } catch (err) {
      depth--;
      const at = held.indexOf(start);
      // Never sent: nothing to undo.
      if (at >= 0) held.length = at;
      else if (top) rollBack();
      else undo(`ROLLBACK TO SAVEPOINT ${sp}; RELEASE SAVEPOINT ${sp}`);
      throw err;
    }
    depth--;
    try {
      // Nothing sent since BEGIN: nothing to commit either.
      if (top && held[0] === start && held.length === (lock ? 2 : 1)) held.length = 0;
      else if (top) query('COMMIT');
      // Sent now: a write refused fails this nested transaction, which its caller may catch (and go on).
      else query(`RELEASE SAVEPOINT ${sp}`);
    } catch (err) {
      // A held write failed (COMMIT or RELEASE then did not run): the transaction is still open.
      if (top) rollBack();
      else undo(`ROLLBACK TO SAVEPOINT ${sp}; RELEASE SAVEPOINT ${sp}`);
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
