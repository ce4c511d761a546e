/**
 * What a turn's end means when it failed, and the notice that says so in its thread. Here, in the
 * session layer, so every face gets the same stored notice: the web (also after a restart), the
 * editor, and a bare `talaria run` whose session is opened later.
 */
import type { Entry } from '../thread/types.js';

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

/** What `noteTurnFailure` needs of a session: its thread and a way to add a notice to it. */
export interface NoticeTarget {
  readonly thread: { readonly entries: readonly Entry[] };
  notice(level: 'error', code: string, text: string, data?: unknown): void;
}

/**
 * A failed turn's error as a notice in its thread, under what the turn showed: the thread is what
 * is stored, so a reload or a restarted server shows the same notice (the turn's end event is not
 * kept). Nothing when the turn never ran (a queued prompt dropped) or already said why (an error
 * notice of its own, e.g. a context overflow).
 */
export function noteTurnFailure(
  s: NoticeTarget,
  turnId: string,
  stopReason: string,
  error: { code: string; message: string } | undefined,
): void {
  const failure = turnFailure(stopReason, error);
  if (!failure) return;
  const entries = s.thread.entries;
  let i = entries.length - 1;
  for (; i >= 0; i--) {
    const e = entries[i]!;
    if (e.kind === 'user_message' && e.turnId === turnId) break;
    if (e.kind === 'notice' && e.level === 'error') return;
  }
  if (i < 0) return;
  const text =
    failure.cause === 'agent'
      ? `The agent stopped during this turn: ${failure.message}`
      : `The turn failed: ${failure.message}`;
  s.notice('error', 'turn_failed', text, { turnId, cause: failure.cause, ...(error ? { code: error.code } : {}) });
}
