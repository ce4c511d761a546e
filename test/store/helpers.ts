import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, realpathSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterFile } from '../file-end.js';
import { openStore, type Store, type StoreOptions } from '../../src/store/index.js';
import { rawDb } from '../../src/store/sqlite.js';

const made: string[] = [];
const opened: Store[] = [];
// Registered while the importing test file is collected, so it runs after that file's tests.
afterFile(() => {
  for (const s of opened.splice(0)) s.close();
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh Talaria home under the OS temp dir, removed after the file's tests. */
export function tempHome(prefix = 'store'): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), `talaria-${prefix}-`)));
  made.push(d);
  return d;
}

/** A store in a fresh temp home (closed after the file's tests unless closed earlier). */
export function freshStore(opts: StoreOptions = {}): Store {
  const s = openStore({ home: tempHome(), ...opts });
  opened.push(s);
  return s;
}

export const FIXTURES = fileURLToPath(new URL('../fixtures/hermes-0.18.2/', import.meta.url));
export const FIXTURE_NAMES = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.ndjson'))
  .sort();
export const readFixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');

/** Non-blank lines of NDJSON text, each parsed. */
export const parsedLines = (text: string): unknown[] =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

/**
 * Damages the store file at `file` under one table: its root page overwritten, the rest intact,
 * so the store still opens and lists, and SQLite reports "database disk image is malformed" on
 * the first write to that table (the WAL is checkpointed into the file first).
 */
export function corruptTable(file: string, table: string): void {
  const s = openStore({ path: file });
  rawDb(s).pragma('wal_checkpoint(TRUNCATE)');
  const { rootpage } = rawDb(s).prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(table) as {
    rootpage: number;
  };
  const pageSize = rawDb(s).pragma('page_size', { simple: true }) as number;
  s.close();
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (rootpage - 1) * pageSize);
  } finally {
    closeSync(fd);
  }
}
