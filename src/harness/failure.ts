/**
 * Why a stored session failed: the error its last turn ended with, as the store recorded it. Every
 * face reads it the same way (the server's status dot, `talaria sessions list`), so a failure
 * survives the process that saw it.
 */
import type { Store } from '../store/index.js';

/** What failed and why: the agent (its process went away or never started) or the turn itself. */
export interface Failure {
  cause: 'turn' | 'agent';
  message: string;
}

/** Turn error codes that mean the agent process is gone (crashed, closed, or could not be started). */
const AGENT_GONE = new Set(['agent_crashed', 'connection_closed', 'spawn_failed']);

/** The failure a turn's end means, if any (its error, or an `error` stop reason). */
export function turnFailure(
  stopReason: string | undefined,
  error: { code?: unknown; message?: unknown } | undefined,
): Failure | undefined {
  if (!error && stopReason !== 'error') return undefined;
  // A turn cut short because the agent process went away (or could not start) is the agent's failure, not the turn's.
  const gone = typeof error?.code === 'string' && AGENT_GONE.has(error.code);
  const message = typeof error?.message === 'string' ? error.message : 'The turn ended with an error.';
  return { cause: gone ? 'agent' : 'turn', message };
}

/** The failure of a session's last stored turn: one indexed read of one row. */
export function storedFailure(store: Store, sessionId: string): Failure | undefined {
  const t = store.turns.last(sessionId);
  return t && t.endedAt !== undefined ? turnFailure(t.stopReason, t.error) : undefined;
}
