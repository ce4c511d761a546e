/**
 * Why a session shows as failed (the summary's `failure`): from a turn that ended with an error,
 * live or as the store recorded it (so the status survives a server restart), or from the agent
 * stopping between turns.
 */
import { storedFailure, turnFailure } from '../harness/index.js';
import type { Store, StoredSession } from '../store/index.js';
import type { Entry } from '../thread/types.js';
import type { SessionSummaryInfo } from './contract/index.js';

export type Failure = NonNullable<SessionSummaryInfo['failure']>;
export { turnFailure, storedFailure };

/** What a live session knows of its failures (the Hub's LiveSession). */
export interface FailureState {
  /** The last turn ended with an error (live, or as stored before this attach): shown until the next turn starts. */
  turnFailure?: Failure;
  /** The agent stopped between turns: shown until the session recovers (over a turn failure). */
  agentFailure?: Failure;
}

/** What the summary shows: the agent's failure while it lasts, else the last turn's. */
export const shownFailure = (f: FailureState): Failure | undefined => f.agentFailure ?? f.turnFailure;

/** A turn started: nothing failed any more. True when something was shown. */
export function clearFailures(f: FailureState): boolean {
  const had = f.turnFailure !== undefined || f.agentFailure !== undefined;
  delete f.turnFailure;
  delete f.agentFailure;
  return had;
}

export function turnEnded(
  f: FailureState,
  stopReason: string,
  error: { code: string; message: string } | undefined,
): void {
  const failure = turnFailure(stopReason, error);
  if (!failure) return;
  f.turnFailure = failure;
  // The turn's error says why the agent stopped more precisely than the state change did.
  delete f.agentFailure;
}

/** What `noteTurnFailure` needs of a live session: its thread and a way to add a notice to it. */
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

export function agentStateChanged(f: FailureState, state: string, previous: string | undefined): void {
  if (state === 'failed') f.agentFailure = { cause: 'agent', message: 'The agent stopped working for this session.' };
  // Recovered from a crash between turns: the agent is back. A turn that ended with an error still shows.
  else if (previous === 'failed') delete f.agentFailure;
}

/**
 * `storedFailure` per listed session, read once per change of the session row: a turn's start and
 * end stamp the row (last_active_at, updated_at) in the commit that records them, whichever process
 * wrote it. A listing of every session then reads no turn (a turn row can be long: its prompt
 * comes before its error on disk).
 */
export class StoredFailures {
  private readonly seen = new Map<
    string,
    { active: number | undefined; updated: number; failure: Failure | undefined }
  >();

  constructor(private readonly store: Store) {}

  of(row: StoredSession): Failure | undefined {
    const hit = this.seen.get(row.id);
    if (hit && hit.active === row.lastActiveAt && hit.updated === row.updatedAt) return hit.failure;
    const failure = storedFailure(this.store, row.id);
    this.seen.set(row.id, { active: row.lastActiveAt, updated: row.updatedAt, failure });
    return failure;
  }
}
