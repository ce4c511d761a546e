/**
 * The one fold of a session's stream into its snapshot: start from a `snapshot`, apply each event
 * in seq order, and the result is the snapshot the server would give at that seq (its thread,
 * pending requests, queue, running turn, catalog, usage). The CLI, the web's session store and
 * the server's tests (resume is exact) all fold with it. Pure and browser-safe: types only.
 *
 * Copy-on-write but for `thread.entries`: every other value it changes is replaced, never
 * mutated, so a reader may keep what it was handed (the web hands views to React). The entries
 * array is written in place: a 10,000-entry thread is not copied per streamed chunk; a reader
 * that keeps it copies the array (pointers only; each change replaces its entry's object).
 *
 * The summary in `session` follows only what the stream says (state, chosen model and mode);
 * its other fields (preview, failure, live…) come with the server's `session.updated`.
 */
import type { SessionSnapshot, StreamEvent } from '../contract/index.js';

type Thread = SessionSnapshot['thread'];
type Usage = Record<string, number>;

/**
 * How an `entry.appended` grows its entry: the new entry, or undefined to leave it (not a text
 * entry). The default joins the strings; the web keeps the chunks (web/src/state/stream-text.ts).
 */
export type GrowText = (entry: unknown, text: string) => unknown;

export const growText: GrowText = (entry, text) => {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const cur = entry as { text?: unknown };
  return typeof cur.text === 'string' ? { ...cur, text: cur.text + text } : undefined;
};

/**
 * Applies one event to a snapshot, in place (see above for what is replaced). An event at or
 * below the snapshot's seq is already in it and is ignored: returns whether it folded.
 */
export function applyEvent(s: SessionSnapshot, e: StreamEvent, grow: GrowText = growText): boolean {
  if (e.seq <= s.seq) return false;
  fold(s, s.thread, e, grow);
  s.seq = e.seq;
  return true;
}

/** One case per event type: a new event type fails to compile (`unfolded`) until it is folded here. */
function fold(s: SessionSnapshot, t: Thread, e: StreamEvent, grow: GrowText): void {
  switch (e.type) {
    case 'entry.added':
    case 'entry.updated':
      t.entries[e.index] = e.entry;
      return;
    case 'entry.appended': {
      const next = grow(t.entries[e.index], e.text);
      if (next !== undefined) t.entries[e.index] = next;
      return;
    }
    case 'plan.updated':
      t.plan = e.plan;
      // The turn that set it: every client draws the plan there (absent: set outside a turn).
      if (e.turnId !== undefined) t.planTurnId = e.turnId;
      else delete t.planTurnId;
      return;
    case 'commands.updated':
      t.availableCommands = e.commands;
      return;
    case 'mode.updated':
      t.currentModeId = e.modeId;
      return;
    case 'config.updated':
      t.configOptions = e.configOptions;
      return;
    case 'info.updated':
      // The server sends the thread's title and updatedAt as they now are: absent is cleared.
      if (e.title !== undefined) t.title = e.title;
      else delete t.title;
      if (e.updatedAt !== undefined) t.updatedAt = e.updatedAt;
      else delete t.updatedAt;
      if (e.meta !== undefined) t.meta = e.meta;
      return;
    case 'context.updated':
      t.context = e.context;
      return;
    case 'catalog.updated':
      s.catalog = e.catalog;
      return;
    case 'choice.updated':
      s.session = {
        ...s.session,
        ...(e.modelId !== undefined ? { modelId: e.modelId } : {}),
        ...(e.modeId !== undefined ? { modeId: e.modeId } : {}),
      };
      return;
    case 'permission.asked':
      if (s.pending.some((p) => p.requestKey === e.requestKey)) return;
      s.pending = [
        ...s.pending,
        {
          requestKey: e.requestKey,
          toolCallId: e.toolCallId,
          options: e.options,
          subject: e.subject,
          seq: e.seq,
          ...(e.title !== undefined ? { title: e.title } : {}),
        },
      ];
      return;
    // The bus's answer, then the server's word on it: either ends the request.
    case 'permission.decided':
    case 'permission.resolved':
      if (s.pending.some((p) => p.requestKey === e.requestKey))
        s.pending = s.pending.filter((p) => p.requestKey !== e.requestKey);
      return;
    case 'queue.updated':
      s.queue = e.queue;
      return;
    case 'turn.started':
      s.turnId = e.turnId;
      return;
    case 'turn.ended':
      delete s.turnId;
      endUsage(s, e.usage);
      return;
    case 'session.state':
      s.session = { ...s.session, state: e.state };
      return;
    case 'session.closed':
      s.session = { ...s.session, state: 'closed' };
      return;
    case 'session.live':
      // Attached again (a snapshot follows): how it got its history.
      s.origin = e.origin;
      return;
    // Recording trouble is state (a reload shows it): delayed until caught up; a failure stays.
    case 'recording.delayed':
      s.recording = {
        ...s.recording,
        delayed: { frames: e.frames, bytes: e.bytes, since: e.since, error: e.error },
      };
      return;
    case 'recording.caught_up':
      if (s.recording?.failed) s.recording = { failed: s.recording.failed };
      else delete s.recording;
      return;
    case 'recording.failed':
      // The first failure is the one shown (as HarnessSession.recording.error keeps it).
      if (s.recording?.failed === undefined)
        s.recording = { ...s.recording, failed: { code: e.code, message: e.message } };
      return;
    // Told, not kept: a queued turn (its queue.updated carries the queue), a bad frame, a nudge.
    case 'turn.queued':
    case 'protocol.error':
    case 'attention':
      return;
  }
  const unfolded: never = e;
  return unfolded;
}

/** As the store sums turns (src/store/turns.ts `usage`): the last turn's counters, and every turn's added up. */
function endUsage(s: SessionSnapshot, usage: unknown): void {
  const counts: Usage = {};
  if (typeof usage === 'object' && usage !== null)
    for (const [k, v] of Object.entries(usage)) if (typeof v === 'number' && Number.isFinite(v)) counts[k] = v;
  if (Object.keys(counts).length === 0) {
    delete s.turnUsage;
    return;
  }
  const total: Usage = { ...(s.usage as Usage | undefined) };
  for (const [k, v] of Object.entries(counts)) total[k] = (total[k] ?? 0) + v;
  s.turnUsage = counts;
  s.usage = total;
}
