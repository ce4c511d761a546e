/**
 * The store's own error (it may not import protocol/errors.ts at run time, see the layer rules).
 * Same shape as TalariaError: a stable string `code` callers switch on.
 */
export type StoreErrorCode =
  /** The database was written by a newer Talaria than this one. */
  | 'schema_too_new'
  /** The file could not be opened as a SQLite database (corrupt, not a database, no access). */
  | 'open_failed'
  /** A migration threw; the transaction was rolled back. */
  | 'migration_failed'
  | 'not_found'
  | 'invalid_argument'
  /** The store was used after close(). */
  | 'closed';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
