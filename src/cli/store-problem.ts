/**
 * A store that cannot be used (corrupt, read-only, no permission, written by a newer Talaria) is
 * one line for the person: what is wrong and how to fix it, never a stack trace. Matched on the
 * error's `code` (StoreError's string codes), not on message text; SQLite's own codes are read in
 * one place, store/errors.ts (a raw SqliteError is classified there first).
 */
import { TalariaError } from '../protocol/errors.js';
import { StoreError, storeErrorFrom } from '../store/index.js';

/** The fix for each store problem, when the error does not carry its own. */
const FIXES: Record<string, (path: string) => string> = {
  store_corrupt: (p) => `move it aside (mv "${p}" "${p}.broken") and run again to start a new store`,
  store_read_only: (p) => `make it writable (chmod u+w "${p}"), or set TALARIA_HOME to a writable folder`,
  store_permission: (p) =>
    `fix its permissions (it must be readable and writable by you: ${p}), or set TALARIA_HOME to another folder`,
  schema_too_new: () => 'upgrade Talaria, or set TALARIA_HOME to another folder',
  migration_failed: (p) => `move it aside (mv "${p}" "${p}.broken") and run again, or report the bug`,
  open_failed: (p) =>
    `check that ${p} is a Talaria store you may read and write, or set TALARIA_HOME to another folder`,
};

interface Coded {
  name?: string;
  code?: unknown;
  cause?: unknown;
  message?: string;
  details?: { path?: unknown; home?: unknown; fix?: unknown };
}

/** SQLite's own error (better-sqlite3's SqliteError), e.g. a page found corrupt mid-query. */
function isSqliteError(err: unknown): err is Coded {
  const e = err as Coded | undefined;
  return e?.name === 'SqliteError' && typeof e.code === 'string' && e.code.startsWith('SQLITE_');
}

export function isStoreProblem(err: unknown): boolean {
  return err instanceof StoreError || isSqliteError(err) || (err as Coded | undefined)?.name === 'StoreError';
}

/**
 * One line: "Talaria's store <path>: <problem>; <fix>". `path` is where the store is (for
 * errors that do not name it).
 */
export function storeProblemLine(problem: unknown, fallbackPath?: string): string {
  // SQLite's own error that got past the store's boundary (store/guard.ts) is classified there too.
  const err = isSqliteError(problem) ? storeErrorFrom(problem, fallbackPath ?? "Talaria's store", 'use') : problem;
  const e = err as Coded;
  const code = typeof e.code === 'string' ? e.code : 'open_failed';
  const path =
    typeof e.details?.path === 'string'
      ? e.details.path
      : typeof e.details?.home === 'string'
        ? e.details.home
        : (fallbackPath ?? "Talaria's store");
  const what = (e.message ?? String(err)).split('\n')[0]!.trim();
  // StoreError's message ends with its `fix` already: not told twice.
  if (typeof (err as { fix?: unknown }).fix === 'string') return `Talaria's store cannot be used: ${what}`;
  const own = typeof e.details?.fix === 'string' ? e.details.fix : undefined;
  const fix = own ?? (/\b(move|chmod|upgrade|set TALARIA_HOME)\b/i.test(what) ? undefined : FIXES[code]?.(path));
  return `Talaria's store cannot be used: ${what}${fix ? `; ${fix}` : ''}`;
}

/**
 * Frames of a session still waiting for the store (it is locked or unreachable) when a face is
 * done with it: lost when the process exits, so the face says so now (its exit code too).
 */
export function stillHeld(
  sessionId: string,
  r: { heldFrames: number; delayedSince: number | undefined },
): TalariaError | undefined {
  if (r.heldFrames === 0 || r.delayedSince === undefined) return undefined;
  const since = new Date(r.delayedSince).toISOString();
  return new TalariaError(
    'recording_failed',
    `session ${sessionId} is not stored completely: ${r.heldFrames} frames still wait for the store, unavailable since ${since}`,
    { sessionId, heldFrames: r.heldFrames },
  );
}
