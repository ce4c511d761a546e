/**
 * The store's boundary for errors: every repository call (and the generators some return) turns a
 * fault of the file (SQLITE_READONLY, _CORRUPT, _FULL, _IOERR…) into a StoreError with the real
 * path and its fix (errors.ts), so no face has to know SQLite's codes or guess where the store is.
 */
import { asStoreError } from './errors.js';

type Fn = (...args: unknown[]) => unknown;

/** `repo` with each method's store faults named (other errors pass through as they are). */
export function guarded<T extends object>(repo: T, path: string): T {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(repo))
    out[name] = typeof value === 'function' ? guardFn(value as Fn, path) : value;
  return out as T;
}

export function guardFn<F extends (...args: never[]) => unknown>(fn: F, path: string): F {
  return function (this: unknown, ...args: unknown[]) {
    let r: unknown;
    try {
      r = (fn as unknown as Fn).apply(this, args);
    } catch (err) {
      throw asStoreError(err, path);
    }
    return isGenerator(r) ? guardGenerator(r, path) : r;
  } as unknown as F;
}

function isGenerator(v: unknown): v is Generator {
  return typeof v === 'object' && v !== null && Object.prototype.toString.call(v) === '[object Generator]';
}

/** A lazy read (wire-log's iterate) fails while it is consumed, not when it is made. */
function* guardGenerator<T>(g: Generator<T>, path: string): Generator<T> {
  try {
    return yield* g;
  } catch (err) {
    throw asStoreError(err, path);
  }
}
