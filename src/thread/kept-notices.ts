/**
 * Talaria's failure notices in an agent's replay. A loaded session's thread is what the agent
 * replays, and the agent never knew that a turn failed (its process died, or it answered with an
 * error): the stored `turn_failed` notices are put back where they were, after the same user
 * message, so reopening a session does not erase why a turn ended.
 */
import type { Entry, NoticeEntry } from './types.js';

/** The notice codes carried over (a failed turn's `turn_failed`: session/turn-failure.ts). */
const KEPT = new Set(['turn_failed']);

const isKept = (e: Entry): e is NoticeEntry => e.kind === 'notice' && KEPT.has(e.code);

/**
 * `live` with the kept notices of `stored` placed after the same number of user messages (before
 * the next one); `live` itself when there is nothing to add. Added notices have an empty id (a
 * rebuilt thread gives them fresh ones: snapshot.ts threadFromSnapshot).
 */
export function withKeptNotices(live: readonly Entry[], stored: readonly Entry[]): readonly Entry[] {
  const have = new Set(live.filter(isKept).map((e) => e.text));
  const add: { after: number; e: NoticeEntry }[] = [];
  let users = 0;
  for (const e of stored) {
    if (e.kind === 'user_message') users++;
    else if (isKept(e) && !have.has(e.text)) add.push({ after: users, e });
  }
  if (add.length === 0) return live;
  const out: Entry[] = [];
  let seen = 0;
  const flush = (upTo: number): void => {
    while (add.length > 0 && add[0]!.after <= upTo) {
      const { turnId: _t, ...rest } = add.shift()!.e;
      out.push({ ...rest, id: '' });
    }
  };
  for (const e of live) {
    // Before the next user message: whatever belonged to the exchanges up to here.
    if (e.kind === 'user_message') flush(seen++);
    out.push(e);
  }
  flush(Number.POSITIVE_INFINITY);
  return out;
}
