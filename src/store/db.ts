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
import { join, resolve } from 'node:path';
import { talariaHome } from '../os/home.js';
import { ensurePrivateDir } from '../os/private-files.js';
import type { Logger } from '../protocol/types.js';
import { isReadOnlyError, openReadOnly, prepareDbFile, tightenDbFiles } from './db-file.js';
import { StoreError, storeErrorFrom } from './errors.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export type Db = Database.Database;

export const DB_FILE = 'talaria.db';

/**
 * WAL pages (4 KiB) a commit may leave before it must checkpoint (SQLite's default is 1000).
 * A checkpoint copies the WAL into the database and fsyncs both: run inside a commit, it stalled
 * a streamed turn every 4 MB (commits of 0.6 ms became 25–70 ms at load 4). The recorder
 * checkpoints when it goes idle instead (harness/recorder.ts); this cap only bounds the WAL of a
 * stream that never pauses (64 MiB).
 */
export const WAL_AUTOCHECKPOINT_PAGES = 16_384;
/** The WAL file's size kept after a checkpoint (SQLite's journal_size_limit). */
export const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

export interface OpenDbOptions {
  /** Talaria's home directory (default `$TALARIA_HOME`, else `~/.talaria`); created 0700. */
  home?: string;
  /** Explicit database file (overrides home/talaria.db); `:memory:` works for throwaway stores. */
  path?: string;
  /**
   * Open without writing anything (read-only commands). A missing store then reads as an empty
   * one and is not created. A file we cannot write is opened read-only without being asked.
   */
  readOnly?: boolean;
  logger?: Logger;
  /** How long a writer waits for another process's lock before SQLITE_BUSY (ms, default 5000). */
  busyTimeoutMs?: number;
  /** @internal Tests substitute their own list. */
  migrations?: readonly Migration[];
}

export interface OpenedDb {
  db: Db;
  path: string;
  home: string | undefined;
  /** Schema version after migrating. */
  version: number;
  /** Versions applied by this open (empty on a reopen). */
  applied: number[];
  /** True when nothing can be written (asked for, or the file is not writable): see readOnlyReason. */
  readOnly: boolean;
  readOnlyReason?: string;
}

export function openDatabase(opts: OpenDbOptions = {}): OpenedDb {
  const migrations = opts.migrations ?? MIGRATIONS;
  const log = opts.logger;
  let home: string | undefined;
  let path: string;
  if (opts.path !== undefined) {
    path = opts.path === ':memory:' ? opts.path : resolve(opts.path);
  } else {
    home = opts.home !== undefined ? resolve(opts.home) : talariaHome();
    path = join(home, DB_FILE);
    if (!opts.readOnly) openHome(home, log);
  }
  const where = { path, home };
  if (path === ':memory:') return setUp(new Database(path), where, migrations, opts);

  const file = prepareDbFile(path, opts);
  if (file.state === 'missing') {
    // Nothing stored yet and nothing may be written: an empty store in memory reads the same.
    return {
      ...setUp(new Database(':memory:'), where, migrations, opts),
      readOnly: true,
      readOnlyReason: `no store at ${path} yet`,
    };
  }
  let reason = file.state === 'read-only' ? file.reason : undefined;
  if (file.state === 'writable') {
    const tightened = tightenDbFiles(path);
    if (tightened.length) log?.info('store: made private (0600)', { files: tightened });
    let db: Db;
    try {
      db = new Database(path);
    } catch (err) {
      throw storeErrorFrom(err, path);
    }
    try {
      return setUp(db, where, migrations, opts);
    } catch (err) {
      // The file is writable but its folder is not (SQLite cannot create the -wal file): read-only.
      if (!isReadOnlyError((err as { cause?: unknown }).cause ?? err)) throw err;
      reason = `${path} or its folder is not writable (${(err as Error).message})`;
    }
  }
  log?.warn('store: opened read-only', { path, reason });
  const db = openReadOnly(path, log);
  return { ...setUp(db, where, migrations, { ...opts, readOnly: true }), readOnly: true, readOnlyReason: reason! };
}

/** Creates the home 0700, or tightens an existing one open to others. */
function openHome(home: string, log: Logger | undefined): void {
  try {
    if (ensurePrivateDir(home)) log?.info('store: made the Talaria home private (0700)', { home });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      throw storeErrorFrom(err, home, 'create the home of');
    throw new StoreError(
      'open_failed',
      `cannot create Talaria home ${home}: ${(err as Error).message}`,
      { home },
      { cause: err },
    );
  }
}

/** Pragmas, then migrations (or, read-only, a check that none is due). Closes `db` on failure. */
function setUp(
  db: Db,
  where: { path: string; home: string | undefined },
  migrations: readonly Migration[],
  opts: OpenDbOptions,
): OpenedDb {
  const { path } = where;
  try {
    // busy_timeout first, so switching to WAL waits for another process instead of failing.
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
    db.pragma('foreign_keys = ON');
    if (db.readonly) {
      const version = checkVersion(db, migrations, path);
      return { db, ...where, version, applied: [], readOnly: true };
    }
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal' && path !== ':memory:')
      opts.logger?.warn('store: WAL not available', { path, mode: String(mode) });
    db.pragma('synchronous = NORMAL');
    db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    // A checkpoint resets the WAL but keeps its file as large as it ever grew (a big prompt left
    // ~160 MB on disk): past this size the file is truncated back.
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    const { version, applied } = migrate(db, migrations);
    if (applied.length > 0) opts.logger?.info('store: migrated', { path, applied, version });
    return { db, ...where, version, applied, readOnly: false };
  } catch (err) {
    db.close();
    if (err instanceof StoreError && !isReadOnlyError(err.cause)) throw err;
    throw storeErrorFrom(err instanceof StoreError ? err.cause : err, path);
  }
}

/** Read-only: the schema must be exactly one this Talaria knows (it cannot migrate). */
function checkVersion(db: Db, migrations: readonly Migration[], path: string): number {
  const known = migrations.reduce((m, x) => Math.max(m, x.version), 0);
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  const have = table
    ? ((db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0)
    : 0;
  if (have > known) throw tooNew(have, known);
  if (have < known) {
    const fix = `Make it writable (chmod u+w ${JSON.stringify(path)} and its folder) and run any talaria command once.`;
    throw new StoreError(
      'store_read_only',
      `The Talaria store ${path} is read-only and needs upgrading (schema ${have} → ${known}). ${fix}`,
      { path, version: have, known },
      { fix },
    );
  }
  return have;
}

/** @internal Also the PostgreSQL store's (pg/migrate.ts). */
export function tooNew(have: number, known: number): StoreError {
  const fix = 'Upgrade Talaria (npm install -g talaria-acp@latest).';
  return new StoreError(
    'schema_too_new',
    `database schema version ${have} is newer than this Talaria understands (${known}); ${fix}`,
    { version: have, known },
    { fix },
  );
}

/** Applies every migration newer than the recorded version, each in its own IMMEDIATE transaction. */
export function migrate(db: Db, migrations: readonly Migration[]): { version: number; applied: number[] } {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const known = migrations.reduce((m, x) => Math.max(m, x.version), 0);
  const current = () =>
    (db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0;
  const have = current();
  if (have > known) throw tooNew(have, known);
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
      throw new StoreError(
        'migration_failed',
        `migration ${m.version} (${m.name}) failed: ${(err as Error).message}`,
        { version: m.version },
        { cause: err },
      );
    }
  }
  return { version: Math.max(have, ...applied), applied };
}
