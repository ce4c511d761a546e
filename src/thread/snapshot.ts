import type { ContextUsage, Entry, PlanEntry, Thread } from './types.js';
import { indexEntries, stateOf } from './state.js';
import { isRecord } from '../os/record.js';

/** A thread as plain JSON: everything but `_ix`, plus the two cursors the indexes cannot recover. */
export type ThreadSnapshot = Omit<Thread, '_ix'> & {
  /** The turn still running when the snapshot was taken. */
  openTurnId?: string;
  /** Index of the entry still accumulating chunks when the snapshot was taken. */
  openRun?: number;
};

/**
 * A JSON-serializable copy. Entries are shared, not cloned: they are immutable by contract, and
 * the copied arrays mean later reductions never show through.
 */
export function snapshot(thread: Thread): ThreadSnapshot {
  const st = stateOf(thread);
  const out: ThreadSnapshot = {
    entries: thread.entries.slice(),
    plan: thread.plan ? thread.plan.slice() : null,
    availableCommands: thread.availableCommands.slice(),
    context: { ...thread.context },
  };
  if (thread.currentModeId !== undefined) out.currentModeId = thread.currentModeId;
  if (thread.configOptions !== undefined) out.configOptions = thread.configOptions.slice();
  if (thread.title !== undefined) out.title = thread.title;
  if (thread.updatedAt !== undefined) out.updatedAt = thread.updatedAt;
  if (thread.meta !== undefined) out.meta = thread.meta;
  if (thread.planTurnId !== undefined) out.planTurnId = thread.planTurnId;
  if (st.turnId !== undefined) out.openTurnId = st.turnId;
  if (st.openRun >= 0) out.openRun = st.openRun;
  return out;
}

const ENTRY_KINDS = new Set(['user_message', 'assistant_message', 'thought', 'tool_call', 'notice', 'unknown']);

/**
 * Rebuilds a live Thread (indexes included) from a snapshot object or its JSON text.
 * Lenient: a row that is not a recognisable entry is kept as an `unknown` entry, never dropped.
 */
export function threadFromSnapshot(json: unknown): Thread {
  const parsed = typeof json === 'string' ? parseMaybe(json) : json;
  const s: Record<string, unknown> = isRecord(parsed) ? parsed : {};
  const rows = Array.isArray(s.entries) ? s.entries : [];
  const entries: Entry[] = rows.map((r) =>
    isRecord(r) && typeof r.kind === 'string' && ENTRY_KINDS.has(r.kind) && typeof r.id === 'string'
      ? (r as unknown as Entry)
      : ({ id: '', kind: 'unknown', sessionUpdate: 'snapshot_row', raw: r } as Entry),
  );
  const st = indexEntries(entries);
  // Rows that lacked an id get fresh ones after the highest existing id.
  for (let i = 0; i < entries.length; i++)
    if (entries[i]!.id === '') entries[i] = { ...entries[i]!, id: 'e' + st.nextId++ };
  if (typeof s.openTurnId === 'string') st.turnId = s.openTurnId;
  if (typeof s.openRun === 'number' && Number.isInteger(s.openRun) && s.openRun >= 0 && s.openRun < entries.length)
    st.openRun = s.openRun;

  const thread: Thread = {
    entries,
    plan: Array.isArray(s.plan) ? (s.plan as PlanEntry[]) : null,
    availableCommands: Array.isArray(s.availableCommands) ? s.availableCommands : [],
    context: isRecord(s.context) ? (s.context as ContextUsage) : {},
    _ix: st,
  };
  if (typeof s.currentModeId === 'string') thread.currentModeId = s.currentModeId;
  if (Array.isArray(s.configOptions)) thread.configOptions = s.configOptions;
  if (typeof s.title === 'string') thread.title = s.title;
  if (typeof s.updatedAt === 'string') thread.updatedAt = s.updatedAt;
  if (s.meta !== undefined) thread.meta = s.meta;
  if (typeof s.planTurnId === 'string') thread.planTurnId = s.planTurnId;
  return thread;
}

function parseMaybe(v: string): unknown {
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
}
