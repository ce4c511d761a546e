/**
 * session/load and session/resume replay (Hermes' _replay_session_history over the agent's
 * history): tool calls paired correctly with the PROVIDER's ids (`call_…`), completions
 * rendered from the raw results (so a denied write replays as failed), texts whole and
 * stripped, todo results followed by their plan.
 */
import { randomUUID } from 'node:crypto';
import { jsonLoadsMaybe } from './pyjson.js';
import { textChunk } from './runtime.js';
import type { HistoryMessage } from './state.js';
import { planUpdate, toolDone, toolStart, type Todo, type Update } from './tools.js';

export function replayUpdates(history: HistoryMessage[], withMessageIds: boolean): Update[] {
  const out: Update[] = [];
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  for (const m of history) {
    if (m.role === 'user') {
      if (m.content.trim()) out.push(textChunk('user_message_chunk', m.content.trim()));
    } else if (m.role === 'assistant') {
      const mid = withMessageIds ? randomUUID() : undefined;
      if (m.reasoning?.trim()) out.push(textChunk('agent_thought_chunk', m.reasoning.trim(), mid));
      if (m.content.trim()) out.push(textChunk('agent_message_chunk', m.content.trim(), mid));
      for (const tc of m.tool_calls ?? []) {
        calls.set(tc.id, { name: tc.name, args: tc.args });
        out.push(toolStart(tc.id, tc.name, tc.args));
      }
    } else {
      const call = calls.get(m.tool_call_id);
      calls.delete(m.tool_call_id);
      const name = call?.name ?? m.tool_name;
      out.push(toolDone(m.tool_call_id, name, m.content, call?.args ?? {}));
      const todos = (jsonLoadsMaybe(m.content) as { todos?: Todo[] } | undefined)?.todos;
      if (name === 'todo' && Array.isArray(todos)) out.push(planUpdate(todos));
    }
  }
  return out;
}
