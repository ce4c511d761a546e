/**
 * Why a stored session failed: the error its last turn ended with, as the store recorded it. Every
 * face reads it the same way (the server's status dot, `talaria sessions list`), so a failure
 * survives the process that saw it.
 */
import type { Store } from '../store/index.js';
import { turnFailure, type Failure } from '../session/turn-failure.js';

export { turnFailure, type Failure };

/** The failure of a session's last stored turn: one indexed read of one row. */
export function storedFailure(store: Store, sessionId: string): Failure | undefined {
  const t = store.turns.last(sessionId);
  return t && t.endedAt !== undefined ? turnFailure(t.stopReason, t.error) : undefined;
}
