import type { Entry, Thread, ThreadChange, ThreadIndex, ToolCallEntry, ToolStatus, UnknownEntry } from './types.js';

/**
 * Reducer-private state kept on `thread._ix` beside the fields types.ts declares.
 * types.ts has no slot for the open turn or the set of open tool calls, so they live here
 * (suggested for ThreadIndex; see the report).
 */
export interface ThreadState extends ThreadIndex {
  /** The turn between `turn.started` and `turn.ended`; new entries are stamped with it. */
  turnId: string | undefined;
  /** Indexes of tool calls still open (non-terminal status or a pending permission): turn end settles these without scanning entries. */
  open: Set<number>;
  /** The live session's clock: tool calls get their start and end times (a replay of a log has none). */
  now?: () => number;
}

// Comparisons, not Set lookups: a status fresh from JSON.parse is not internalized, and a Set
// lookup hashes it on every tool call update.
export function isTerminal(status: string): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

export function isToolStatus(v: unknown): v is ToolStatus {
  return typeof v === 'string' && (v === 'pending' || v === 'in_progress' || isTerminal(v));
}

export function newState(): ThreadState {
  return { nextId: 0, openRun: -1, toolCalls: new Map(), messages: new Map(), turnId: undefined, open: new Set() };
}

/** `now`: a live session's clock, so tool calls carry when they started and ended (see ThreadState.now). */
export function createThread(now?: () => number): Thread {
  const st = newState();
  if (now) st.now = now;
  return { entries: [], plan: null, availableCommands: [], context: {}, _ix: st };
}

/** Key of `_ix.messages`: kind + messageId, since an agent may reuse one id for a thought and its answer. */
export function messageKey(kind: string, messageId: string): string {
  return kind + '\u0000' + messageId;
}

export function isOpenCall(e: ToolCallEntry): boolean {
  return !isTerminal(e.status) || e.permission?.status === 'pending';
}

/** The state of a thread; a Thread built by hand (not by createThread/threadFromSnapshot) gets its indexes rebuilt once. */
export function stateOf(thread: Thread): ThreadState {
  const ix = thread._ix as Partial<ThreadState> | undefined;
  if (ix && ix.open instanceof Set && ix.toolCalls instanceof Map && ix.messages instanceof Map)
    return ix as ThreadState;
  const rebuilt = indexEntries(thread.entries);
  if (ix && typeof ix === 'object')
    return Object.assign(ix, rebuilt, { nextId: Math.max(rebuilt.nextId, ix.nextId ?? 0) });
  (thread as { _ix: ThreadIndex })._ix = rebuilt;
  return rebuilt;
}

/** One pass over the entries: the only place that scans (loading a snapshot). */
export function indexEntries(entries: readonly Entry[]): ThreadState {
  const st = newState();
  let maxId = -1;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const m = /^e(\d+)$/.exec(e.id);
    if (m) maxId = Math.max(maxId, Number(m[1]));
    if (e.kind === 'tool_call') {
      st.toolCalls.set(e.toolCallId, i);
      if (isOpenCall(e)) st.open.add(i);
    } else if (e.kind !== 'notice' && e.kind !== 'unknown' && e.messageId !== undefined) {
      st.messages.set(messageKey(e.kind, e.messageId), i);
    }
  }
  st.nextId = Math.max(maxId + 1, entries.length);
  return st;
}

export function nextEntryId(st: ThreadState): string {
  return 'e' + st.nextId++;
}

/** The id the next entry will get (nextEntryId without taking it). */
export function upcomingEntryId(st: ThreadState): string {
  return 'e' + st.nextId;
}

/**
 * Closes the open run. Its text was built one chunk at a time, so it is a rope holding every
 * chunk: flattening it here (one copy of the text) lets the chunks die young, instead of each
 * being carried through every later collection (the thread is most of what a session retains).
 * The entry is not changed: the string's value is the same, only V8's representation of it.
 */
export function closeRun(thread: Thread, st: ThreadState): void {
  const index = st.openRun;
  if (index < 0) return;
  st.openRun = -1;
  const e = thread.entries[index];
  if (e !== undefined && (e.kind === 'assistant_message' || e.kind === 'thought' || e.kind === 'user_message'))
    flatten(e.text);
}

/** Kept so the conversion below is never dropped as dead code by the optimizing compiler. */
const sink = { flattened: 0 };

/** V8 flattens a rope in place when it is converted to a number (the `flatstr` trick). */
function flatten(s: string): void {
  if (s.length > 0) sink.flattened = Number(s);
}

/** Appends an entry (stamped with the open turn), closing the open run. */
export function pushEntry(thread: Thread, st: ThreadState, entry: Entry, changes: ThreadChange[]): number {
  const index = thread.entries.length;
  thread.entries.push(entry);
  closeRun(thread, st);
  changes.push({ type: 'entry.added', index, entry });
  return index;
}

/** Replaces the entry at `index` by a new object: old objects are never mutated. */
export function replaceEntry(thread: Thread, index: number, entry: Entry, changes: ThreadChange[]): void {
  thread.entries[index] = entry;
  changes.push({ type: 'entry.updated', index, entry });
}

/** Replaces a message entry by a copy whose text is the old one with `appended` added (nothing else changed). */
export function appendToEntry(
  thread: Thread,
  index: number,
  entry: Entry,
  appended: string,
  changes: ThreadChange[],
): void {
  thread.entries[index] = entry;
  changes.push({ type: 'entry.updated', index, entry, appended });
}

export function addUnknown(thread: Thread, sessionUpdate: string, raw: unknown, changes: ThreadChange[]): void {
  const st = stateOf(thread);
  const entry: UnknownEntry = { id: nextEntryId(st), kind: 'unknown', sessionUpdate, raw };
  if (st.turnId !== undefined) entry.turnId = st.turnId;
  pushEntry(thread, st, entry, changes);
}
