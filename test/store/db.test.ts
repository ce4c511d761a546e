import { describe, it, expect } from 'vitest';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore, StoreError, MIGRATIONS, DB_FILE, type Migration } from '../../src/store/index.js';
import { openDatabase } from '../../src/store/db.js';
import { tempHome } from './helpers.js';
import { talariaHome } from '../../src/os/home.js';
import { rawDb } from '../../src/store/sqlite.js';

const TABLES = [
  'agent_defaults',
  'caps_host',
  'caps_refs',
  'entries',
  'entry_tails',
  'fleet_hosts',
  'fleet_join_tokens',
  'permission_audit',
  'permission_rules',
  'schema_migrations',
  'session_branches',
  'session_events',
  'session_leases',
  'session_presence',
  'sessions',
  'threads',
  'turns',
  'wire_blocks',
  'wire_log',
  'workspaces',
];

/** The newest schema version this build knows (tests of later migrations count from it). */
const LAST = Math.max(...MIGRATIONS.map((m) => m.version));

function tables(store: { db: { prepare(s: string): { all(): unknown[] } } }): string[] {
  return (
    store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
  ).map((r) => r.name);
}

function errorOf(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StoreError);
    return e as StoreError;
  }
  throw new Error('expected a StoreError');
}

describe('opening the database', () => {
  it('migrates an empty home: every table, the migration recorded, WAL, NORMAL sync, foreign keys', () => {
    const home = join(tempHome(), 'nested', 'home');
    const { db, version, applied, path } = openDatabase({ home });
    try {
      expect(path).toBe(join(home, DB_FILE));
      expect(version).toBe(LAST);
      expect(applied).toEqual(MIGRATIONS.map((m) => m.version));
      expect(tables({ db })).toEqual(TABLES);
      expect(db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all()).toEqual(
        MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
      );
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    } finally {
      db.close();
    }
    // Private: the home folder 0700, the database 0600.
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, DB_FILE)).mode & 0o777).toBe(0o600);
  });

  it('reopening is idempotent and keeps the data', () => {
    const home = tempHome();
    const a = openStore({ home });
    a.sessions.create({ id: 's1', provider: 'hermes', cwd: '/w' });
    a.close();
    const first = openDatabase({ home });
    expect(first.applied).toEqual([]);
    expect(first.version).toBe(LAST);
    expect(first.db.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get()).toEqual({ n: MIGRATIONS.length });
    first.db.close();
    const b = openStore({ home });
    expect(b.sessions.get('s1')?.provider).toBe('hermes');
    b.close();
  });

  it('refuses a database from a newer Talaria with schema_too_new, naming both versions', () => {
    const home = tempHome();
    const s = openStore({ home });
    rawDb(s)
      .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)')
      .run(LAST + 5, 'from-the-future');
    s.close();
    const err = errorOf(() => openStore({ home }));
    expect(err.code).toBe('schema_too_new');
    expect(err.details).toEqual({ version: LAST + 5, known: LAST });
    expect(err.message).toContain(`version ${LAST + 5} `);
    expect(err.message).toContain(`(${LAST})`);
  });

  it('applies later migrations in order on an older database, each once', () => {
    const home = tempHome();
    openStore({ home }).close();
    const calls: number[] = [];
    const more: Migration[] = [
      ...MIGRATIONS,
      {
        version: LAST + 2,
        name: 'third',
        up: (db) => (calls.push(LAST + 2), db.exec('ALTER TABLE sessions ADD COLUMN c3 TEXT')),
      },
      {
        version: LAST + 1,
        name: 'second',
        up: (db) => (calls.push(LAST + 1), db.exec('ALTER TABLE sessions ADD COLUMN c2 TEXT')),
      },
    ];
    const o = openDatabase({ home, migrations: more });
    expect(o.applied).toEqual([LAST + 1, LAST + 2]);
    expect(calls).toEqual([LAST + 1, LAST + 2]);
    o.db.close();
    const again = openDatabase({ home, migrations: more });
    expect(again.applied).toEqual([]);
    expect(calls).toEqual([LAST + 1, LAST + 2]);
    again.db.close();
  });

  it('a failing migration is rolled back and reported as migration_failed', () => {
    const home = tempHome();
    openStore({ home }).close();
    const bad: Migration[] = [
      ...MIGRATIONS,
      {
        version: LAST + 1,
        name: 'broken',
        up: (db) => {
          db.exec('CREATE TABLE half_done (x)');
          throw new Error('boom');
        },
      },
    ];
    const err = errorOf(() => openDatabase({ home, migrations: bad }));
    expect(err.code).toBe('migration_failed');
    expect(err.message).toMatch(new RegExp(`migration ${LAST + 1} \\(broken\\).*boom`));
    const o = openDatabase({ home });
    expect(o.version).toBe(LAST);
    expect(tables(o)).not.toContain('half_done');
    o.db.close();
  });

  it('a file that is not a database is store_corrupt, not a crash', () => {
    const home = tempHome();
    writeFileSync(join(home, DB_FILE), 'this is not sqlite '.repeat(100));
    const err = errorOf(() => openStore({ home }));
    expect(err.code).toBe('store_corrupt');
    expect(err.message).toContain(DB_FILE);
  });

  it('a home that cannot be created is open_failed', () => {
    const file = join(tempHome(), 'a-file');
    writeFileSync(file, 'x');
    const err = errorOf(() => openStore({ home: join(file, 'home') }));
    expect(err.code).toBe('open_failed');
    expect(err.message).toContain('cannot create Talaria home');
  });

  it('home defaults to $TALARIA_HOME, else ~/.talaria', () => {
    expect(talariaHome({ env: { TALARIA_HOME: '/x/y' } })).toBe('/x/y');
    expect(talariaHome({ env: { TALARIA_HOME: '  ' } })).toMatch(/\.talaria$/);
    expect(talariaHome({ env: {} })).toMatch(/\.talaria$/);
  });

  it('an explicit path is used as is; close is idempotent', () => {
    const p = join(tempHome(), 'other.db');
    const s = openStore({ path: p });
    expect(s.path).toBe(p);
    expect(s.home).toBeUndefined();
    s.close();
    s.close();
    expect(s.closed).toBe(true);
    expect(statSync(p).isFile()).toBe(true);
  });
});
