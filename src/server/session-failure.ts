/**
 * Why a session shows as failed (the summary's `failure`): from a turn that ended with an error,
 * live or as the store recorded it (so the status survives a server restart), or from the agent
 * stopping between turns.
 */
import { storedFailure, turnFailure } from '../harness/index.js';
import type { Store, StoredSession } from '../store/index.js';
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
