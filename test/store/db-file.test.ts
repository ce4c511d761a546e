import { afterEach, describe, expect, it } from 'vitest';
import { modesApply } from '../file-modes.js';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TalariaError } from '../../src/protocol/errors.js';
import type { Logger } from '../../src/protocol/types.js';
import { DB_FILE, MIGRATIONS, openStore, StoreError, storeErrorFrom, type Store } from '../../src/store/index.js';
import { createRecorder } from '../../src/harness/recorder.js';
import { corruptTable, tempHome } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

const CHILD = fileURLToPath(new URL('./open-as-child.ts', import.meta.url));

interface ChildFailure {
  name?: string;
  code?: string;
  message?: string;
  fix?: string;
}
interface ChildReport {
  error?: ChildFailure;
  readOnly?: boolean;
  readOnlyReason?: string;
  titles?: string[];
  listError?: ChildFailure;
  recorder?: 'ok' | ChildFailure;
  write?: 'ok' | ChildFailure;
  logs: string[];
}

/**
 * Opens the store in a real child process the file modes apply to (as root: without the
 * capabilities that override them, test/file-modes.ts). (An in-process seteuid would not do:
 * access(2) checks the real uid.)
 */
async function openAsOtherUser(o: { home: string; readOnly?: boolean }): Promise<ChildReport> {
  const run = modesApply(process.execPath, [...nodeArgs(CHILD), JSON.stringify(o)]);
  const child = spawn(run.command, run.args, {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '', HOME: tmpdir() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const code = await new Promise<number | null>((r) => child.once('close', r));
  if (code !== 0 || !out.trim()) throw new Error(`open-as-child exited ${code}: ${err}`);
  return JSON.parse(out) as ChildReport;
}

const restore: [string, number][] = [];
function chmod(path: string, mode: number): void {
  restore.push([path, statSync(path).mode & 0o777]);
  chmodSync(path, mode);
}
afterEach(() => {
  // Put modes back so the temp homes can be removed.
  for (const [p, m] of restore.splice(0).reverse()) if (existsSync(p)) chmodSync(p, m);
});

function logger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const put = (level: string) => (msg: string, data?: Record<string, unknown>) =>
    void lines.push(`${level} ${msg} ${JSON.stringify(data ?? {})}`);
  return { lines, debug: put('debug'), info: put('info'), warn: put('warn'), error: put('error') };
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

/** A home holding a store with one session, closed (so no -wal/-shm left), open to other users for reading. */
function storeWithSession(): { home: string; file: string } {
  const home = tempHome('ro');
  const s = openStore({ home });
  s.sessions.create({ id: 's1', provider: 'demo', cwd: '/w', title: 'kept' });
  s.close();
  chmodSync(home, 0o755);
  return { home, file: join(home, DB_FILE) };
}

describe('store files are private', () => {
  it('the home is created 0700, the database and its -wal/-shm 0600', () => {
    const home = join(tempHome(), 'new-home');
    const s = openStore({ home });
    s.sessions.create({ id: 'a', provider: 'demo', cwd: '/w' });
    try {
      expect(statSync(home).mode & 0o777).toBe(0o700);
      for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`])
        expect(statSync(join(home, f)).mode & 0o777, f).toBe(0o600);
    } finally {
      s.close();
    }
  });

  it('an existing home and files left open to others are tightened on open (and it is logged)', () => {
    const home = tempHome();
    const s = openStore({ home });
    s.sessions.create({ id: 'a', provider: 'demo', cwd: '/w' });
    // Still open: -wal and -shm exist. Loosen everything, as a umask 022 tool or an old Talaria would.
    for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`]) chmodSync(join(home, f), 0o644);
    chmodSync(home, 0o755);
    const log = logger();
    const again = openStore({ home, logger: log });
    try {
      expect(statSync(home).mode & 0o777).toBe(0o700);
      for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`])
        expect(statSync(join(home, f)).mode & 0o777, f).toBe(0o600);
      expect(log.lines.join('\n')).toMatch(/made the Talaria home private[\s\S]*made private \(0600\)/);
    } finally {
      again.close();
      s.close();
    }
  });
});

describe('a corrupt, unreadable or read-only store', () => {
  it('a file that is not a database: store_corrupt, one line with the fix (move it aside); the file is left alone', () => {
    const home = tempHome();
    const file = join(home, DB_FILE);
    const junk = 'this is not sqlite '.repeat(100);
    writeFileSync(file, junk);
    const err = errorOf(() => openStore({ home }));
    expect(err).toBeInstanceOf(TalariaError);
    expect(err.code).toBe('store_corrupt');
    expect(err.message).not.toContain('\n');
    expect(err.message).toContain(file);
    expect(err.message).toMatch(/damaged or not a database.*Move it aside \(mv /);
    expect(err.fix).toMatch(/^Move it aside/);
    expect(readFileSync(file, 'utf8')).toBe(junk);
    // Read-only opening says the same.
    expect(errorOf(() => openStore({ home, readOnly: true })).code).toBe('store_corrupt');
  });

  it('a folder where the database should be is store_corrupt too', () => {
    const home = tempHome();
    openStore({ home }).close();
    const odd = tempHome();
    const err = errorOf(() => openStore({ path: odd }));
    expect(err.code).toBe('store_corrupt');
  });

  it('a file this user cannot write is opened read-only: listing works, it says so, recording refuses with store_read_only', async () => {
    const { home, file } = storeWithSession();
    chmod(file, 0o444);
    const r = await openAsOtherUser({ home });
    expect(r.error).toBeUndefined();
    expect(r.readOnly).toBe(true);
    expect(r.readOnlyReason).toMatch(/not writable/);
    expect(r.logs.join('\n')).toMatch(/warn store: opened read-only/);
    expect(r.titles).toEqual(['kept']);
    expect(r.recorder).toMatchObject({
      name: 'StoreError',
      code: 'store_read_only',
      message: expect.stringMatching(/read-only.*chmod u\+w/),
    });
    // A write that slips through is a plain SQLite error; storeErrorFrom names it.
    expect(r.write).toMatchObject({ code: 'store_read_only' });
    expect(readFileSync(file).subarray(0, 15).toString()).toBe('SQLite format 3');
  });

  it('a read-only folder (no -shm can be made for the WAL database): still listed, from a read-only copy', async () => {
    const { home, file } = storeWithSession();
    chmod(file, 0o444);
    chmod(home, 0o555);
    const r = await openAsOtherUser({ home });
    expect(r.error).toBeUndefined();
    expect([r.readOnly, r.titles]).toEqual([true, ['kept']]);
    expect(existsSync(`${file}-shm`)).toBe(false);
  });

  it('a writable file in a folder this user cannot write (no -wal can be made): read-only, still listed', async () => {
    const { home, file } = storeWithSession();
    chmod(file, 0o666);
    chmod(home, 0o555);
    const r = await openAsOtherUser({ home });
    expect(r.error).toBeUndefined();
    expect([r.readOnly, r.titles]).toEqual([true, ['kept']]);
    expect(r.readOnlyReason).toMatch(/or its folder is not writable/);
    expect(r.recorder).toMatchObject({ code: 'store_read_only' });
  });

  it('a file this user cannot read: store_permission, naming the file and the fix; never "cannot create" for a file that exists', async () => {
    const { home, file } = storeWithSession();
    chmod(file, 0o000);
    const { error } = await openAsOtherUser({ home });
    expect(error?.code).toBe('store_permission');
    expect(error?.message).toContain(file);
    expect(error?.message).toMatch(/Cannot read the Talaria store .*Fix its permissions/);
    expect(error?.message).not.toMatch(/create/i);
  });

  it('a home this user cannot look into: store_permission "cannot read", not "cannot create" (the file is there)', async () => {
    const { home, file } = storeWithSession();
    chmod(home, 0o000);
    const { error } = await openAsOtherUser({ home });
    expect(error?.code).toBe('store_permission');
    expect(error?.message).toMatch(/^Cannot read the Talaria store /);
    expect(error?.message).toContain(file);
  });

  it('a missing database in a folder this user cannot write: store_permission, "cannot create"', async () => {
    const home = tempHome();
    chmod(home, 0o555);
    const { error } = await openAsOtherUser({ home });
    expect(error?.code).toBe('store_permission');
    expect(error?.message).toMatch(/Cannot create the Talaria store/);
  });

  it('readOnly: nothing is created; a missing store reads as empty', () => {
    const home = join(tempHome(), 'never-made');
    const s: Store = openStore({ home, readOnly: true });
    expect(s.readOnly).toBe(true);
    expect(s.sessions.list()).toEqual([]);
    s.close();
    expect(existsSync(home)).toBe(false);
    const { home: h2 } = storeWithSession();
    const r = openStore({ home: h2, readOnly: true });
    expect(r.sessions.get('s1')?.title).toBe('kept');
    expect(errorOf(() => createRecorder(r, { sessionKey: 's1' })).code).toBe('store_read_only');
    r.close();
  });

  it('a read-only store that needs a migration says so (store_read_only) instead of failing on the write', () => {
    const { home } = storeWithSession();
    const last = Math.max(...MIGRATIONS.map((m) => m.version));
    const err = errorOf(() =>
      openStore({
        home,
        readOnly: true,
        migrations: [...MIGRATIONS, { version: last + 1, name: 'next', up: () => {} }],
      }),
    );
    expect(err.code).toBe('store_read_only');
    expect(err.message).toContain(`needs upgrading (schema ${last} → ${last + 1})`);
  });

  it("a fault of the file from any repository call (or a read consumed later) is a StoreError naming the real path, not SQLite's bare error", () => {
    const { home, file } = storeWithSession();
    // SQLite's read-only flag: what a read-only file gives a writer, as root too.
    const ro = openStore({ home, readOnly: true });
    const write = errorOf(() => ro.sessions.create({ provider: 'demo', cwd: '/w' }));
    expect(write).toMatchObject({ code: 'store_read_only', details: { path: file, cause: 'SQLITE_READONLY' } });
    expect(write.message).toContain(`chmod u+w ${JSON.stringify(file)}`);
    expect(errorOf(() => ro.transaction(() => ro.sessions.setTitle('s1', 'x'))).code).toBe('store_read_only');
    ro.close();
    const rw = openStore({ home });
    rw.wire.append('s1', [{ t_ms: 1, dir: 'agent->client', msg: { jsonrpc: '2.0', method: 'm' } }]);
    rw.close();
    corruptTable(file, 'wire_log');
    const s = openStore({ home });
    expect(
      errorOf(() => s.wire.append('s1', [{ t_ms: 2, dir: 'agent->client', msg: { jsonrpc: '2.0', method: 'm' } }])),
    ).toMatchObject({
      code: 'store_corrupt',
      details: { path: file },
    });
    // A generator (wire.iterate) fails as it is read: named too.
    expect(errorOf(() => [...s.wire.iterate('s1')])).toMatchObject({ code: 'store_corrupt', details: { path: file } });
    // A constraint is a bug or a race, not the file's fault: it stays SQLite's own error.
    expect(() => s.sessions.create({ id: 's1', provider: 'demo', cwd: '/w' })).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/^SQLITE_CONSTRAINT/) }),
    );
    s.close();
  });

  it('storeErrorFrom: busy and full get their own codes and fixes; anything else is open_failed', () => {
    const busy = storeErrorFrom(
      Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }),
      '/h/talaria.db',
    );
    expect([busy.code, busy.fix]).toEqual([
      'store_busy',
      'Wait for the other Talaria command to finish, then try again.',
    ]);
    expect(storeErrorFrom(Object.assign(new Error('disk full'), { code: 'SQLITE_FULL' }), '/x').code).toBe(
      'store_full',
    );
    expect(
      storeErrorFrom(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }), '/x'),
    ).toMatchObject({ code: 'store_io', details: { path: '/x' } });
    expect(storeErrorFrom(new Error('odd\nthing'), '/x')).toMatchObject({
      code: 'open_failed',
      message: 'Cannot open the Talaria store /x: odd thing',
    });
  });
});
