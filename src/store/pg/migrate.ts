/**
 * Brings a PostgreSQL store's schema up to date: every pending migration in one transaction
 * (PostgreSQL's DDL is transactional), under an advisory lock so two Talarias opening a fresh
 * database at once apply each migration exactly once. A read-only store only checks the version.
 */
import { StoreError } from '../errors.js';
import { tooNew } from '../db.js';
import type { PgMigration } from './migrations/index.js';
import type { PgSqlDb } from './sql-pg.js';

/** The migrators' advisory lock (not the writers': a migration may wait for neither). */
export const MIGRATE_LOCK_KEY = 0x74616c6d; // 'talm'

const version = (db: PgSqlDb): number => {
  const r = db.query('SELECT MAX(version) AS v FROM schema_migrations').rows[0] as { v: number | null } | undefined;
  return r?.v ?? 0;
};

export function migratePg(db: PgSqlDb, migrations: readonly PgMigration[]): { version: number; applied: number[] } {
  const known = migrations.reduce((m, x) => Math.max(m, x.version), 0);
  const applied: number[] = [];
  let have = 0;
  let current: PgMigration | undefined;
  try {
    db.transaction(() => {
      db.query(`SELECT pg_advisory_xact_lock(${MIGRATE_LOCK_KEY})`);
      db.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
      have = version(db);
      if (have > known) throw tooNew(have, known);
      for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
        if (m.version <= have) continue;
        current = m;
        m.up(db);
        db.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
          m.version,
          m.name,
          Date.now(),
        ]);
        applied.push(m.version);
      }
    })();
  } catch (err) {
    if (err instanceof StoreError || current === undefined) throw err;
    throw new StoreError(
      'migration_failed',
      `migration ${current.version} (${current.name}) failed: ${(err as Error).message}`,
      { version: current.version },
      { cause: err },
    );
  }
  return { version: Math.max(have, ...applied), applied };
}

/** Read-only: the schema must be exactly one this Talaria knows (it cannot migrate). */
export function checkPgVersion(db: PgSqlDb, migrations: readonly PgMigration[], where: string): number {
  const known = migrations.reduce((m, x) => Math.max(m, x.version), 0);
  const table = db.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS t").rows[0] as { t: boolean };
  const have = table.t ? version(db) : 0;
  if (have > known) throw tooNew(have, known);
  if (have < known) {
    const fix = 'Open it once without readOnly (a role that may write) to bring its schema up to date.';
    throw new StoreError(
      'store_read_only',
      `The Talaria store ${where} is read-only and needs upgrading (schema ${have} → ${known}). ${fix}`,
      { path: where, version: have, known },
      { fix },
    );
  }
  return have;
}
