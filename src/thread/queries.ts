/**
 * Read access to a thread by tool call and message, through the reducer's indexes (no scan of the entries).
 * Callers use these instead of reaching into `thread._ix`.
 */
import { chunkTarget } from './messages.js';
import { stateOf, upcomingEntryId } from './state.js';
import type { MessageEntry, Thread, ToolCallEntry } from './types.js';

/** The tool call entry with this ACP toolCallId, if the thread has one. */
export function findToolCall(thread: Thread, toolCallId: string): ToolCallEntry | undefined {
  const idx = stateOf(thread).toolCalls.get(toolCallId);
  const e = idx === undefined ? undefined : thread.entries[idx];
  return e?.kind === 'tool_call' ? e : undefined;
}

export function hasToolCall(thread: Thread, toolCallId: string): boolean {
  return stateOf(thread).toolCalls.has(toolCallId);
}

/** Tool calls still pending or in progress, oldest first. */
export function openToolCalls(thread: Thread): ToolCallEntry[] {
  const out: ToolCallEntry[] = [];
  for (const idx of stateOf(thread).toolCalls.values()) {
    const e = thread.entries[idx];
    if (e?.kind === 'tool_call' && (e.status === 'pending' || e.status === 'in_progress')) out.push(e);
  }
  return out;
}

/** The entry kind a message chunk folds into; undefined for any other update. */
export function chunkKind(sessionUpdate: string): MessageEntry['kind'] | undefined {
  // A switch, not a lookup table: a property read keyed by a string fresh from JSON.parse costs a string-table probe.
  switch (sessionUpdate) {
    case 'agent_message_chunk':
      return 'assistant_message';
    case 'agent_thought_chunk':
      return 'thought';
    case 'user_message_chunk':
      return 'user_message';
    default:
      return undefined;
  }
}

/**
 * Where a chunk of `kind` without a messageId of its own goes: the entry of the open run, or the
 * id of the entry it will start (the next one the thread adds; an empty chunk starts none).
 */
export function runTarget(thread: Thread, kind: MessageEntry['kind']): MessageEntry | string {
  const st = stateOf(thread);
  const e = thread.entries[chunkTarget(thread, st, kind, undefined)];
  return e === undefined ? upcomingEntryId(st) : (e as MessageEntry);
}
