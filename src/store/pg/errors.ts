/**
 * PostgreSQL's errors as the store's: a fault of the server (read-only, full, busy, no right,
 * damaged) is a StoreError naming it, like SQLite's faults of the file (errors.ts); a constraint,
 * a bad value or bad SQL is a plain error with `code` `PG_<SQLSTATE>`, as a SqliteError is, so
 * callers that catch one catch the other.
 */
import { StoreError, type StoreErrorCode } from '../errors.js';

/** A statement PostgreSQL refused for what it is, not for the state of the server. */
export class PgStatementError extends Error {
  override readonly name = 'PgStatementError';
  constructor(
    message: string,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const FIX: Partial<Record<StoreErrorCode, string>> = {
  store_read_only: 'Connect as a role that may write (or without a read-only setting) to record sessions.',
  store_permission: 'Grant the role Talaria connects as the rights on its database.',
  store_busy: 'Check that the server is up and not overloaded, then try again.',
  store_full: 'Free space on the database server, then try again.',
  store_corrupt: 'Check the server (its log names the damaged relation).',
};

const CONSTRAINTS: Record<string, string> = {
  '23502': 'NOT NULL',
  '23503': 'FOREIGN KEY',
  '23505': 'UNIQUE',
  '23514': 'CHECK',
};

function problemOf(sqlstate: string): StoreErrorCode | 'statement' {
  const cls = sqlstate.slice(0, 2);
  if (sqlstate === '25006') return 'store_read_only';
  if (sqlstate === '42501' || cls === '28') return 'store_permission';
  if (cls === '3D' || cls === '3F') return 'open_failed';
  if (cls === '23' || cls === '22' || cls === '42' || cls === '21' || cls === '0A' || cls === '25' || cls === 'P0')
    return 'statement';
  if (cls === '40' || cls === '55' || cls === '57' || cls === '08') return 'store_busy';
  if (sqlstate === '53100') return 'store_full';
  if (sqlstate === 'XX001' || sqlstate === 'XX002') return 'store_corrupt';
  return 'store_io';
}

/** `err` (from the synchronous connection) as the store reports it. */
export function fromPg(err: unknown, where: string): unknown {
  if (!(err instanceof StoreError)) return err;
  const sqlstate = err.details?.sqlstate;
  if (typeof sqlstate !== 'string') return err;
  const problem = problemOf(sqlstate);
  if (problem === 'statement') {
    // Named as SQLite names it, so a caller (or a test) reads one message on both backends.
    const kind = CONSTRAINTS[sqlstate];
    return new PgStatementError(kind ? `${kind} constraint failed: ${err.message}` : err.message, `PG_${sqlstate}`, {
      cause: err,
    });
  }
  if (problem === err.code) return err;
  const fix = FIX[problem];
  return new StoreError(
    problem,
    fix ? `${err.message}. ${fix}` : err.message,
    { where, sqlstate },
    { cause: err, ...(fix ? { fix } : {}) },
  );
}
