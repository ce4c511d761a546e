/**
 * Opens `<home>/talaria.db` and brings its schema up to date.
 *
 * Durability: WAL + `synchronous=NORMAL`. In WAL mode every COMMIT is appended to the -wal file
 * with write(2) before it returns, so the data sits in the OS page cache: a process crash or
 * SIGKILL loses nothing that was committed. Only an OS crash or power loss can drop the last few
 * transactions (NORMAL skips the fsync per commit; the database never corrupts). That meets the
 * requirement — "a harness killed mid-turn keeps every frame" — at a fraction of FULL's cost.
 */
import Database from 'better-sqlite3';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Logger } from '../protocol/types.js';
import { StoreError } from './errors.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export type Db = Database.Database;

export const DB_FILE = 'talaria.db';

export interface OpenDbOptions {
  /** Talaria's home directory (default `$TALARIA_HOME`, else `~/.talaria`); created 0700. */
  home?: string;
  /** Explicit database file (overrides home/talaria.db); `:memory:` works for throwaway stores. */
  path?: string;
  logger?: Logger;
  /** How long a writer waits for another process's lock before SQLITE_BUSY (ms, default 5000). */
  busyTimeoutMs?: number;
  /** @internal Tests substitute their own list. */
  migrations?: readonly Migration[];
}

/** `$TALARIA_HOME`, else `~/.talaria`. */
export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  const h = env.TALARIA_HOME;
  return h && h.trim() !== '' ? resolve(h) : join(homedir(), '.talaria');
}

export interface OpenedDb {
  db: Db;
  path: string;
  home: string | undefined;
  /** Schema version after migrating. */
  version: number;
  /** Versions applied by this open (empty on a reopen). */
  applied: number[];
}

export function openDatabase(opts: OpenDbOptions = {}): OpenedDb {
  const migrations = opts.migrations ?? MIGRATIONS;
  let home: string | undefined;
  let path: string;
  if (opts.path !== undefined) {
    path = opts.path === ':memory:' ? opts.path : resolve(opts.path);
  } else {
    home = opts.home !== undefined ? resolve(opts.home) : resolveHome();
    // The database holds whole conversations: keep the folder and file private.
    try {
      mkdirSync(home, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new StoreError('open_failed', `cannot create Talaria home ${home}: ${(err as Error).message}`, { home }, { cause: err });
    }
    path = join(home, DB_FILE);
  }
  if (path !== ':memory:') {
    // Create the file 0600 ourselves; SQLite gives the -wal/-shm files the same mode.
    try {
      closeSync(openSync(path, 'a', 0o600));
    } catch (err) {
      throw new StoreError('open_failed', `cannot create ${path}: ${(err as Error).message}`, { path }, { cause: err });
    }
  }

  let db: Db;
  try {
    db = new Database(path);
  } catch (err) {
    throw new StoreError('open_failed', `cannot open ${path}: ${(err as Error).message}`, { path }, { cause: err });
  }
  try {
    // busy_timeout first, so switching to WAL waits for another process instead of failing.
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal' && path !== ':memory:') opts.logger?.warn('store: WAL not available', { path, mode: String(mode) });
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    const { version, applied } = migrate(db, migrations);
    if (applied.length > 0) opts.logger?.info('store: migrated', { path, applied, version });
    return { db, path, home, version, applied };
  } catch (err) {
    db.close();
    if (err instanceof StoreError) throw err;
    throw new StoreError('open_failed', `cannot open ${path} as a Talaria store: ${(err as Error).message}`, { path }, { cause: err });
  }
}

/** Applies every migration newer than the recorded version, each in its own IMMEDIATE transaction. */
export function migrate(db: Db, migrations: readonly Migration[]): { version: number; applied: number[] } {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const known = migrations.reduce((m, x) => Math.max(m, x.version), 0);
  const current = () => (db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0;
  const have = current();
  if (have > known) {
    throw new StoreError(
      'schema_too_new',
      `database schema version ${have} is newer than this Talaria understands (${known}); upgrade Talaria`,
      { version: have, known },
    );
  }
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const applied: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (m.version <= have) continue;
    // IMMEDIATE takes the write lock first; re-checking inside means two processes opening a fresh
    // database at once apply each migration exactly once.
    const run = db.transaction(() => {
      if (current() >= m.version) return false;
      m.up(db);
      record.run(m.version, m.name, Date.now());
      return true;
    });
    try {
      if (run.immediate()) applied.push(m.version);
    } catch (err) {
      throw new StoreError('migration_failed', `migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, { version: m.version }, { cause: err });
    }
  }
  return { version: Math.max(have, ...applied), applied };
}
