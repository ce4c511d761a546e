import type {
  ContextUsage,
  NoticeEntry,
  PlanEntry,
  Thread,
  ThreadAction,
  ThreadChange,
  MessageEntry,
} from './types.js';
import { addUnknown, closeRun, nextEntryId, pushEntry, stateOf, type ThreadState } from './state.js';
import { isRecord } from '../os/record.js';
import { applyChunk, splitBlocks } from './messages.js';
import { settleTurn, upsertToolCall } from './tool-calls.js';
import { echoesSeed } from './seed.js';

/**
 * The thread reducer: deterministic, no I/O, no clock, no randomness. It mutates `thread` in place
 * (the entries array and thread-level fields) but never an Entry object: a changed entry is replaced
 * by a new one. O(1) per chunk via `_ix`. It never throws: what it cannot model becomes an
 * `unknown` entry holding the raw update. The changes are appended to `changes` (a caller on the
 * hot path passes one array it reuses) and returned.
 */
export function reduce(thread: Thread, action: ThreadAction, changes: ThreadChange[] = []): ThreadChange[] {
  try {
    const st = stateOf(thread);
    switch (action?.type) {
      case 'update':
        applyUpdate(thread, st, action.update, changes);
        break;
      case 'turn.started':
        turnStarted(thread, st, action, changes);
        break;
      case 'turn.ended':
        closeRun(thread, st);
        settleTurn(thread, st, String(action.turnId), action.outcome, changes);
        if (st.turnId === String(action.turnId)) st.turnId = undefined;
        break;
      case 'permission':
        if (!isRecord(action.toolCall) || !validId(action.toolCall.toolCallId) || !isRecord(action.permission)) {
          addUnknown(thread, 'permission', action, changes);
        } else {
          upsertToolCall(thread, st, action.toolCall, 'permission', changes, action.permission);
        }
        break;
      case 'notice':
        addNotice(thread, st, action, changes);
        break;
      default:
        addUnknown(
          thread,
          typeof (action as { type?: unknown })?.type === 'string' ? (action as { type: string }).type : '',
          action,
          changes,
        );
    }
  } catch {
    // Safety net only: keep the input rather than lose it or break the stream.
    const raw: unknown = action?.type === 'update' ? action.update : action;
    const kind = isRecord(raw) && typeof raw.sessionUpdate === 'string' ? raw.sessionUpdate : '';
    addUnknown(thread, kind, raw, changes);
  }
  return changes;
}

/**
 * `reduce(thread, { type: 'update', update }, changes)` without the action object: what a session
 * calls once per streamed update. Same result, same safety net.
 */
export function reduceUpdate(thread: Thread, update: unknown, changes: ThreadChange[]): ThreadChange[] {
  try {
    applyUpdate(thread, stateOf(thread), update, changes);
  } catch {
    addUnknown(
      thread,
      isRecord(update) && typeof update.sessionUpdate === 'string' ? update.sessionUpdate : '',
      update,
      changes,
    );
  }
  return changes;
}

function validId(v: unknown): v is string {
  return typeof v === 'string' && v !== '';
}

function applyUpdate(thread: Thread, st: ThreadState, u: unknown, changes: ThreadChange[]): void {
  if (!isRecord(u) || typeof u.sessionUpdate !== 'string') {
    addUnknown(thread, '', u, changes);
    return;
  }
  if (!applyKnown(thread, st, u.sessionUpdate, u, changes)) addUnknown(thread, u.sessionUpdate, u, changes);
}

/** Returns false for unknown kinds and malformed known ones. */
function applyKnown(
  thread: Thread,
  st: ThreadState,
  kind: string,
  u: Record<string, unknown>,
  changes: ThreadChange[],
): boolean {
  switch (kind) {
    // One case each, not a kind lookup table: a property read keyed by a string fresh from
    // JSON.parse costs a string-table probe per chunk.
    case 'agent_message_chunk':
      return applyChunk(thread, st, 'assistant_message', u, changes);
    case 'agent_thought_chunk':
      return applyChunk(thread, st, 'thought', u, changes);
    case 'user_message_chunk':
      return applyChunk(thread, st, 'user_message', u, changes);
    case 'tool_call':
    case 'tool_call_update':
      if (!validId(u.toolCallId)) return false;
      upsertToolCall(thread, st, u, kind, changes);
      return true;
    case 'plan':
      if (!Array.isArray(u.entries)) return false;
      thread.plan = u.entries as PlanEntry[];
      if (st.turnId !== undefined) thread.planTurnId = st.turnId;
      else delete thread.planTurnId;
      changes.push(
        st.turnId !== undefined
          ? { type: 'plan.updated', plan: thread.plan, turnId: st.turnId }
          : { type: 'plan.updated', plan: thread.plan },
      );
      return true;
    case 'available_commands_update':
      if (!Array.isArray(u.availableCommands)) return false;
      thread.availableCommands = u.availableCommands;
      changes.push({ type: 'commands.updated', commands: thread.availableCommands });
      return true;
    case 'current_mode_update':
      if (typeof u.currentModeId !== 'string') return false;
      thread.currentModeId = u.currentModeId;
      changes.push({ type: 'mode.updated', modeId: u.currentModeId });
      return true;
    case 'config_option_update':
      if (!Array.isArray(u.configOptions)) return false;
      thread.configOptions = u.configOptions;
      changes.push({ type: 'config.updated', configOptions: u.configOptions });
      return true;
    case 'session_info_update':
      return sessionInfo(thread, u, changes);
    case 'usage_update':
      return usage(thread, u, changes);
    default:
      return false;
  }
}

/** title/updatedAt: a string sets, null clears, absent keeps; `_meta` (alone or not) goes to thread.meta. */
function sessionInfo(thread: Thread, u: Record<string, unknown>, changes: ThreadChange[]): boolean {
  // A seeded branch's first prompt is Talaria's transcript header: a title the agent made of it is noise.
  if (typeof u.title === 'string') {
    if (!echoesSeed(u.title)) thread.title = u.title;
  } else if (u.title === null) delete thread.title;
  if (typeof u.updatedAt === 'string') thread.updatedAt = u.updatedAt;
  else if (u.updatedAt === null) delete thread.updatedAt;
  if (u._meta != null) thread.meta = u._meta;
  const change: Extract<ThreadChange, { type: 'info.updated' }> = { type: 'info.updated' };
  if (thread.title !== undefined) change.title = thread.title;
  if (thread.updatedAt !== undefined) change.updatedAt = thread.updatedAt;
  changes.push(change);
  return true;
}

/** used/size replace (size can shrink after an overflow); cost replaces when sent, null clears, absent keeps. */
function usage(thread: Thread, u: Record<string, unknown>, changes: ThreadChange[]): boolean {
  const used = typeof u.used === 'number' ? u.used : undefined;
  const size = typeof u.size === 'number' ? u.size : undefined;
  if (used === undefined && size === undefined) return false;
  const context: ContextUsage = {};
  if (used !== undefined) context.used = used;
  if (size !== undefined) context.size = size;
  const cost = u.cost === undefined ? thread.context.cost : u.cost;
  if (cost != null) context.cost = cost;
  thread.context = context;
  changes.push({ type: 'context.updated', context });
  return true;
}

function turnStarted(
  thread: Thread,
  st: ThreadState,
  action: Extract<ThreadAction, { type: 'turn.started' }>,
  changes: ThreadChange[],
): void {
  st.turnId = String(action.turnId);
  const { text, blocks } = splitBlocks(Array.isArray(action.prompt) ? action.prompt : []);
  const entry: MessageEntry = { id: nextEntryId(st), turnId: st.turnId, kind: 'user_message', text, blocks };
  pushEntry(thread, st, entry, changes); // closes the run; the prompt itself is not a run (echoed chunks start their own)
}

function addNotice(
  thread: Thread,
  st: ThreadState,
  action: Extract<ThreadAction, { type: 'notice' }>,
  changes: ThreadChange[],
): void {
  const entry: NoticeEntry = {
    id: nextEntryId(st),
    kind: 'notice',
    level: action.level,
    code: String(action.code),
    text: String(action.text),
  };
  if (st.turnId !== undefined) entry.turnId = st.turnId;
  if (action.data !== undefined) entry.data = action.data;
  pushEntry(thread, st, entry, changes);
}
