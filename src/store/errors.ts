/**
 * The store's errors: a TalariaError (one local error family, string codes) whose message is one
 * line that says what to do, also given alone in `fix` for a face that renders it apart.
 */
import { TalariaError } from '../protocol/errors.js';

/** The store's codes (a layer's own union; TalariaErrorCode in harness/errors.ts is all of them). */
export const STORE_ERROR_CODES = [
  /** The database was written by a newer Talaria than this one. */
  'schema_too_new',
  /** The file is damaged or not a SQLite database: move it aside. */
  'store_corrupt',
  /** A write was needed (create, migrate, record) but the store can only be read. */
  'store_read_only',
  /** The file or its folder cannot be read or created by this user. */
  'store_permission',
  /** Another process holds the write lock longer than the busy timeout. */
  'store_busy',
  /** The disk is full. */
  'store_full',
  /** The operating system reported an I/O error reading or writing the file. */
  'store_io',
  /** Anything else that kept the database from opening. */
  'open_failed',
  /** A migration threw; the transaction was rolled back. */
  'migration_failed',
  'not_found',
  'invalid_argument',
  /** The store was used after close(). */
  'closed',
] as const;
export type StoreErrorCode = (typeof STORE_ERROR_CODES)[number];

export class StoreError extends TalariaError<StoreErrorCode> {
  override readonly name = 'StoreError';
  /** What the user can do about it (also the end of the message). */
  readonly fix: string | undefined;
  constructor(
    code: StoreErrorCode,
    message: string,
    details?: Record<string, unknown>,
    options?: { cause?: unknown; fix?: string },
  ) {
    super(code, message, details, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.fix = options?.fix;
  }
}

/** Which store problem an error code of SQLite or the file system is; undefined: not one of the file's. */
function problemOf(code: string): StoreErrorCode | undefined {
  if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT') || code === 'EISDIR')
    return 'store_corrupt';
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') return 'store_read_only';
  if (
    code === 'EACCES' ||
    code === 'EPERM' ||
    code.startsWith('SQLITE_CANTOPEN') ||
    code.startsWith('SQLITE_PERM') ||
    code.startsWith('SQLITE_AUTH')
  )
    return 'store_permission';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'store_busy';
  if (code.startsWith('SQLITE_FULL') || code === 'ENOSPC') return 'store_full';
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO') return 'store_io';
  return undefined;
}

/**
 * A StoreError for whatever SQLite or the file system threw while `doing` something with `path`,
 * with the fix in the message: corrupt → move it aside, read-only or permission → fix the mode,
 * busy → another Talaria holds the lock, full → free space. The one place SQLite's codes are read.
 */
export function storeErrorFrom(err: unknown, path: string, doing = 'open'): StoreError {
  if (err instanceof StoreError) return err;
  const code = codeOf(err);
  const why = oneLine(err instanceof Error ? err.message : String(err));
  const q = JSON.stringify(path);
  const details = { path, ...(code ? { cause: code } : {}) };
  const make = (c: StoreErrorCode, message: string, fix: string) =>
    new StoreError(c, `${message} ${fix}`, details, { cause: err, fix });
  switch (problemOf(code)) {
    case 'store_corrupt':
      return make(
        'store_corrupt',
        `The Talaria store ${path} is damaged or not a database (${why}).`,
        `Move it aside (mv ${q} ${JSON.stringify(path + '.broken')}); Talaria then starts a new, empty store.`,
      );
    case 'store_read_only':
      return make(
        'store_read_only',
        `The Talaria store ${path} is read-only (${why}).`,
        `Make it and its folder writable (chmod u+w ${q}) to record sessions; read-only commands still work.`,
      );
    case 'store_permission':
      return make(
        'store_permission',
        `Cannot ${doing} the Talaria store ${path} (${why}).`,
        `Fix its permissions: it and its folder must belong to you (chmod 600 ${q}; chmod 700 its folder), or set TALARIA_HOME to a folder you own.`,
      );
    case 'store_busy':
      return make(
        'store_busy',
        `The Talaria store ${path} is locked by another process (${why}).`,
        'Wait for the other Talaria command to finish, then try again.',
      );
    case 'store_full':
      return make(
        'store_full',
        `The disk holding the Talaria store ${path} is full (${why}).`,
        'Free some space, then try again.',
      );
    case 'store_io':
      return make(
        'store_io',
        `The Talaria store ${path} could not be read or written (${why}).`,
        'Check the disk it is on (dmesg, df), then try again.',
      );
    default:
      return new StoreError('open_failed', `Cannot ${doing} the Talaria store ${path}: ${why}`, details, {
        cause: err,
      });
  }
}

/**
 * A fault of the store's file (corrupt, read-only, no permission, busy, full, I/O) as a StoreError
 * naming `path`; anything else (a constraint, a bug, a StoreError already) is returned as it is.
 */
export function asStoreError(err: unknown, path: string, doing = 'use'): unknown {
  return err instanceof StoreError || problemOf(codeOf(err)) === undefined ? err : storeErrorFrom(err, path, doing);
}

const codeOf = (err: unknown): string =>
  typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : '';
const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ').trim();
