/**
 * One session as the UI draws it: a snapshot plus the stream events after it, folded in seq
 * order by the one fold the CLI and the tests use too (src/server/client/thread.ts). The typed
 * client's LiveSocket delivers each event once (it resumes with `since` after a drop); the fold
 * also ignores any seq it already has, so a refresh or a resync can never double an entry.
 * Entries are written in place and a version bumps: a 10,000-entry thread is not copied on every
 * streamed chunk. Listeners are told at most once per FLUSH_MS, and what they get is a view read
 * off the snapshot that never changes after (see `changed`).
 */
// The contract's types, not ../api/server.js: that module touches the DOM, and this one is unit-tested in Node.
import type { SessionSnapshot, StreamEvent } from '../../../src/server/contract/index.js';
import { applyEvent, type GrowText } from '../../../src/server/client/thread.js';
import { appendText, partsOf } from './stream-text.js';
import { isObj, readPlan, str } from './entries.js';
import { keepPlanAt, planAtOf, turnStartId } from './plan-at.js';
import { emptySnapshot, viewReader, type Seen, type SessionView } from './session-view.js';

export { copyPlanAt } from './plan-at.js';
export { readUsage, type Resolution, type SessionView, type Usage } from './session-view.js';

/** Shortest time between two renders of one session (20 a second is smooth for streamed text). */
const FLUSH_MS = 50;

/**
 * A streamed chunk kept as chunks (not `old.text + text`): a render then reads only what is new.
 * The parts are checked first: reading `text` of a chunked entry joins the whole message.
 */
const growParts: GrowText = (old, text) =>
  isObj(old) && (partsOf(old) !== undefined || typeof old.text === 'string') ? appendText(old, text) : undefined;

export class SessionStore {
  /** The session as the fold keeps it (written in place); never handed out. */
  private snap: SessionSnapshot;
  private seen: Seen = { resolved: new Map() };
  private loaded = false;
  private version = 0;
  private readonly read: ReturnType<typeof viewReader>;
  /** The last view told to listeners: never mutated (React may still render an older one). */
  private shown: SessionView;
  private readonly listeners = new Set<() => void>();
  private scheduled = false;
  private lastFlush = 0;

  constructor(readonly sessionId: string) {
    this.snap = emptySnapshot(sessionId);
    this.read = viewReader(sessionId);
    this.shown = this.read(this.snap, this.seen, false, 0);
  }

  get = (): SessionView => this.shown;

  /** Requests still waiting for an answer, with the events folded so far (not only the last flush's). */
  get pendingCount(): number {
    return this.snap.pending.length;
  }

  /** The session's snapshot as folded so far (the tests compare it with the fold's own). */
  snapshot(): SessionSnapshot {
    return this.snap;
  }

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  applySnapshot(s: SessionSnapshot): void {
    // Its own thread and entries array: the fold writes into them, and the caller may keep `s`.
    this.snap = { ...s, thread: { ...s.thread, entries: [...s.thread.entries] } };
    this.loaded = true;
    this.seen = { resolved: new Map(), ...planAtOf(this.sessionId, s.thread.entries, s.thread.planTurnId) };
    this.version++;
    this.changed();
  }

  /** Folds one event; events at or below the current seq were already folded and are ignored. */
  applyEvent(e: StreamEvent): void {
    if (!applyEvent(this.snap, e, growParts)) return;
    this.see(e);
    this.version++;
    this.changed();
  }

  /** What this browser keeps of an event beyond the snapshot (Seen): after the fold, so it reads the folded thread. */
  private see(e: StreamEvent): void {
    const seen = this.seen;
    switch (e.type) {
      case 'plan.updated': {
        const entries = this.snap.thread.entries;
        const at = turnStartId(entries, e.turnId) ?? lastUserId(entries);
        if (readPlan(e.plan) && at !== undefined && at !== seen.planAt) {
          seen.planAt = at;
          keepPlanAt(this.sessionId, at);
        }
        return;
      }
      case 'turn.started':
        delete seen.lastStop;
        return;
      case 'turn.ended':
        seen.lastStop = {
          stopReason: String(e.stopReason),
          ...(e.error ? { error: { code: e.error.code, message: e.error.message } } : {}),
        };
        return;
      case 'permission.decided':
      case 'permission.resolved': {
        const answeredBy = e.answeredBy ?? seen.resolved.get(e.requestKey)?.answeredBy;
        seen.resolved = new Map(seen.resolved).set(e.requestKey, {
          requestKey: e.requestKey,
          toolCallId: e.toolCallId,
          decidedBy: e.decidedBy,
          outcome: e.outcome,
          ...(answeredBy ? { answeredBy } : {}),
        });
        return;
      }
      default:
        return;
    }
  }

  /**
   * A new view per notification so React sees the change, with its own copy of the entries
   * array (pointers only; the entries are shared and each update replaces its entry's object).
   * A view React has drawn must not change under it: a render that is not the update's own (a
   * scroll or a row's resize re-renders the thread at once, outside the update's transition)
   * would otherwise draw the entries as they are now, parsing the streamed markdown of the
   * chunks that arrived since in that synchronous task.
   */
  private changed(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const flush = (): void => {
      if (!this.scheduled) return;
      this.scheduled = false;
      this.lastFlush = Date.now();
      this.shown = this.read(this.snap, this.seen, this.loaded, this.version);
      for (const fn of this.listeners) fn();
    };
    // At most one render per FLUSH_MS while a turn streams (a few hundred chunks a second would
    // otherwise re-render the growing message every frame). A task of its own, not an animation
    // frame: the render and the frame's layout and paint are then two tasks, not one long one.
    const wait = Math.max(0, this.lastFlush + FLUSH_MS - Date.now());
    setTimeout(flush, wait);
  }
}

export const statusOf = (v: SessionView): string => str(v.state) ?? 'idle';

/** The id of the last user message in the thread (the start of the latest turn). */
function lastUserId(entries: unknown[]): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (isObj(e) && e.kind === 'user_message' && typeof e.id === 'string') return e.id;
  }
  return undefined;
}
