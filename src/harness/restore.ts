/**
 * Showing a stored thread in a live session whose agent did not replay it (resume, fork, or a
 * session the agent lost). The stored snapshot becomes the session's thread; a turn that was cut
 * off (the harness died mid-turn) is settled as cancelled, as a live cancel would have.
 */
import type { Session } from '../session/session.js';
import { reduce } from '../thread/reducer.js';
import { keepCancelled } from '../thread/tool-calls.js';
import { withKeptNotices } from '../thread/kept-notices.js';
import { snapshot, threadFromSnapshot, type ThreadSnapshot } from '../thread/snapshot.js';
import type { NoticeEntry, Thread } from '../thread/types.js';

/** Replaces the session's (fresh) thread with `snap`; notices the host added meanwhile are kept. Returns whether history was shown. */
export function seedThread(session: Session, snap: ThreadSnapshot | undefined): boolean {
  if (!snap || snap.entries.length === 0) return false;
  const live = session.thread;
  const notices = live.entries.filter((e): e is NoticeEntry => e.kind === 'notice');
  const { openRun: _run, ...rest } = snap;
  const t = threadFromSnapshot(rest);
  if (snap.openTurnId !== undefined) reduce(t, { type: 'turn.ended', turnId: snap.openTurnId, outcome: 'cancelled' });
  // What the agent sent while the session opened is newer than the stored copy.
  if (live.availableCommands.length > 0) t.availableCommands = live.availableCommands;
  if (live.currentModeId !== undefined) t.currentModeId = live.currentModeId;
  if (live.configOptions !== undefined) t.configOptions = live.configOptions;
  if (live.context.size !== undefined || live.context.used !== undefined) t.context = live.context;
  replaceThread(live, t);
  for (const n of notices) session.notice(n.level, n.code, n.text, n.data);
  return true;
}

/** Session.thread is a fixed reference: its contents are swapped in place. */
function replaceThread(target: Thread, source: Thread): void {
  for (const k of Object.keys(target) as (keyof Thread)[])
    if (!(k in source)) delete (target as unknown as Record<string, unknown>)[k];
  Object.assign(target, source);
}

/**
 * A session whose thread is the agent's replay: what only Talaria knew of it is carried over from
 * the stored thread (calls a cancel settled stay cancelled: thread/tool-calls.ts keepCancelled;
 * why a turn failed: thread/kept-notices.ts). Before recording starts, so the store keeps it too.
 */
export function keepTalariaSettlements(session: Session, snap: ThreadSnapshot | undefined): void {
  if (!snap) return;
  keepCancelled(session.thread, snap.entries);
  const entries = withKeptNotices(session.thread.entries, snap.entries);
  if (entries === session.thread.entries) return;
  // Entries moved: the thread's indexes are rebuilt around them (the replay's open run is over).
  const { openRun: _run, ...rest } = snapshot(session.thread);
  replaceThread(session.thread, threadFromSnapshot({ ...rest, entries }));
}

/**
 * The stored thread meta, when the agent's replay brought none: Hermes reports its lineage
 * (`_meta.hermes.sessionProvenance`) in session_info_update only, never in a load's replay, and
 * the next open needs it to find the conversation's current head (providers/hermes/provenance.ts).
 */
export function keepThreadMeta(session: Session, snap: ThreadSnapshot | undefined): void {
  if (session.thread.meta === undefined && snap?.meta !== undefined) session.thread.meta = snap.meta;
}
