/** Small builders for reducer tests: ACP updates as agents send them. */
import type { Entry, Thread, ThreadAction, ThreadChange } from '../../src/thread/types.js';
import { reduce } from '../../src/thread/index.js';

type U = { sessionUpdate: string; [k: string]: unknown };

export const up = (update: U): ThreadAction => ({ type: 'update', update });
export const text = (t: string) => ({ type: 'text', text: t });

export const msg = (t: string, messageId?: string) =>
  up({ sessionUpdate: 'agent_message_chunk', content: text(t), ...(messageId ? { messageId } : {}) });
export const thought = (t: string, messageId?: string) =>
  up({ sessionUpdate: 'agent_thought_chunk', content: text(t), ...(messageId ? { messageId } : {}) });
export const user = (t: string, messageId?: string) =>
  up({ sessionUpdate: 'user_message_chunk', content: text(t), ...(messageId ? { messageId } : {}) });
export const toolCall = (toolCallId: string, fields: Record<string, unknown> = {}) =>
  up({ sessionUpdate: 'tool_call', toolCallId, ...fields });
export const toolUpdate = (toolCallId: string, fields: Record<string, unknown> = {}) =>
  up({ sessionUpdate: 'tool_call_update', toolCallId, ...fields });
export const started = (turnId: string, prompt = 'hi'): ThreadAction => ({
  type: 'turn.started',
  turnId,
  prompt: [text(prompt)],
});
export const ended = (turnId: string, outcome: 'completed' | 'cancelled' | 'failed' = 'completed'): ThreadAction => ({
  type: 'turn.ended',
  turnId,
  outcome,
});

/** Reduces all actions, returning every change. */
export function run(thread: Thread, ...actions: ThreadAction[]): ThreadChange[] {
  return actions.flatMap((a) => reduce(thread, a));
}

/** A compact view of entries for table assertions: kind + text / title+status. */
export function shape(entries: readonly Entry[]): string[] {
  return entries.map((e) => {
    switch (e.kind) {
      case 'tool_call':
        return `tool:${e.toolCallId}:${e.status}`;
      case 'notice':
        return `notice:${e.code}`;
      case 'unknown':
        return `unknown:${e.sessionUpdate}`;
      default:
        return `${e.kind}:${e.text}`;
    }
  });
}

export function tool(thread: Thread, toolCallId: string) {
  const e = thread.entries.find((x) => x.kind === 'tool_call' && x.toolCallId === toolCallId);
  if (!e || e.kind !== 'tool_call') throw new Error(`no tool call ${toolCallId}`);
  return e;
}
