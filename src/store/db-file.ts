/**
 * The database file before SQLite opens it: created 0600 when missing, tightened when looser,
 * and probed so a file we may read but not write is opened read-only instead of failing (a
 * store on a read-only disk, or another user's, can still be listed and exported).
 */
import Database from 'better-sqlite3';
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { PRIVATE_FILE_MODE, tightenFile } from '../os/private-files.js';
import type { Logger } from '../protocol/types.js';
import { storeErrorFrom } from './errors.js';

export type DbFileState = { state: 'writable' } | { state: 'read-only'; reason: string } | { state: 'missing' };

/**
 * What can be done with the file at `path`: a missing one is created 0600 (unless `readOnly`);
 * an unreadable one is a store_permission error, a folder store_corrupt.
 */
export function prepareDbFile(path: string, o: { readOnly?: boolean }): DbFileState {
  if (!exists(path)) {
    if (o.readOnly) return { state: 'missing' };
    try {
      closeSync(openSync(path, 'wx', PRIVATE_FILE_MODE));
    } catch (err) {
      // Another process may have created it meanwhile: that is fine.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw storeErrorFrom(err, path, 'create');
    }
    return { state: 'writable' };
  }
  try {
    if (statSync(path).isDirectory()) throw Object.assign(new Error('it is a folder'), { code: 'EISDIR' });
    closeSync(openSync(path, 'r'));
  } catch (err) {
    throw storeErrorFrom(err, path, 'read');
  }
  if (o.readOnly) return { state: 'read-only', reason: 'opened read-only on request' };
  try {
    closeSync(openSync(path, 'r+'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      return { state: 'read-only', reason: `${path} is not writable (${code})` };
    throw storeErrorFrom(err, path, 'open');
  }
  return { state: 'writable' };
}

/** True when `path` exists; a folder we may not look into is a permission error, not "missing". */
function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw storeErrorFrom(err, path, 'read');
  }
}

/** The database and its -wal/-shm files made 0600 when an older Talaria or a umask left them open. */
export function tightenDbFiles(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`].filter((f) => tightenFile(f));
}

/** Errors that mean "this connection cannot write here" (the file, its folder, or the -shm index). */
export function isReadOnlyError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN');
}

/**
 * A read-only connection. A WAL database in a folder we cannot write has no -shm index and SQLite
 * cannot make one: then the file is read into memory and opened from there (header switched to
 * rollback mode, which is all WAL mode changes in the file; nothing is written back).
 */
export function openReadOnly(path: string, logger?: Logger): Database.Database {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.prepare('SELECT COUNT(*) FROM sqlite_master').get();
    return db;
  } catch (err) {
    db.close();
    if (!isReadOnlyError(err)) throw storeErrorFrom(err, path, 'read');
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw storeErrorFrom(err, path, 'read');
  }
  // Bytes 18-19: file format write/read version, 2 = WAL, 1 = rollback journal.
  if (bytes.length >= 100 && bytes[18] === 2 && bytes[19] === 2) bytes[18] = bytes[19] = 1;
  const wal = `${path}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0)
    logger?.warn('store: read-only copy misses the changes still in the -wal file', { path });
  try {
    const copy = new Database(bytes, { readonly: true });
    copy.prepare('SELECT COUNT(*) FROM sqlite_master').get();
    return copy;
  } catch (err) {
    throw storeErrorFrom(err, path, 'read');
  }
}
