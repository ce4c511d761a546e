/**
 * The one SQL face the repositories use: prepare → run/get/all/iterate, exec, transactions that
 * nest. better-sqlite3's Database satisfies it as it is (no wrapper: the recorder's commit makes
 * hundreds of statement calls a batch, and SQLite must not pay an extra call for each); the
 * PostgreSQL store implements it over its synchronous connection (pg/sql-pg.ts).
 *
 * The SQL is written once for both: `?` parameters, `ON CONFLICT … DO UPDATE/NOTHING`,
 * `INSERT … RETURNING` with `.get()`, no `LIMIT -1`, no `INSERT OR …`. What truly differs is
 * asked of `dialect` (absent: SQLite), in the few places named by the helpers below.
 */

export interface SqlRunResult {
  changes: number;
}

export interface SqlStatement<P extends unknown[] = unknown[], R = unknown> {
  run(...params: P): SqlRunResult;
  get(...params: P): R | undefined;
  all(...params: P): R[];
  /** SQLite steps lazily; PostgreSQL reads every row first. Do not run another statement of the same db while it iterates on SQLite. */
  iterate(...params: P): IterableIterator<R>;
}

/** `fn` as one transaction: called plainly it is deferred, `immediate` takes the write lock first. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface SqlTransaction<F extends (...args: any[]) => unknown> {
  (...args: ArgsOf<F>): ReturnType<F>;
  immediate(...args: ArgsOf<F>): ReturnType<F>;
}

/** Parameters<F> spelled as better-sqlite3 spells it (TypeScript compares the two structurally). */
type ArgsOf<F> = F extends (...args: infer A) => unknown ? A : never;

export interface SqlDb {
  /** Absent on better-sqlite3's Database (SQLite); 'postgres' on the PostgreSQL port. */
  readonly dialect?: 'postgres';
  // better-sqlite3's shape (a named-parameter object binds as one argument), so its Database fits.
  prepare<P extends unknown[] | object = unknown[], R = unknown>(
    sql: string,
  ): P extends unknown[] ? SqlStatement<P, R> : SqlStatement<[P], R>;
  exec(sql: string): unknown;
  // `any` as better-sqlite3 declares it: a narrower constraint would not accept its Database.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  transaction<F extends (...args: any[]) => unknown>(fn: F): SqlTransaction<F>;
}

/** A `LIMIT` that means "no limit" on both (SQLite's `-1` is an error to PostgreSQL). */
export const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/** Case-insensitive LIKE: SQLite's LIKE folds ASCII case, PostgreSQL's does not (ILIKE does). */
export const ciLike = (db: SqlDb): string => (db.dialect === 'postgres' ? 'ILIKE' : 'LIKE');
