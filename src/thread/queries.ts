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

/**
 * The id a client knows a chunk's message by, the one a replay gives it (acp/setup.ts): the
 * agent's messageId, else that of the entry the chunk goes to (its messageId, else its id), else
 * the id of the entry it will start. Undefined when `u` is not a chunk.
 */
export function chunkMessageId(thread: Thread, u: { sessionUpdate: string; messageId?: unknown }): string | undefined {
  // A switch, not a lookup table: a property read keyed by a string fresh from JSON.parse costs a string-table probe.
  let kind: MessageEntry['kind'];
  switch (u.sessionUpdate) {
    case 'agent_message_chunk':
      kind = 'assistant_message';
      break;
    case 'agent_thought_chunk':
      kind = 'thought';
      break;
    case 'user_message_chunk':
      kind = 'user_message';
      break;
    default:
      return undefined;
  }
  if (typeof u.messageId === 'string' && u.messageId !== '') return u.messageId;
  const st = stateOf(thread);
  const e = thread.entries[chunkTarget(thread, st, kind, undefined)];
  return e === undefined ? upcomingEntryId(st) : ((e as MessageEntry).messageId ?? e.id);
}
