/**
 * Read access to a thread by tool call, through the reducer's indexes (no scan of the entries).
 * Callers use these instead of reaching into `thread._ix`.
 */
import { stateOf } from './state.js';
import type { Thread, ToolCallEntry } from './types.js';

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
