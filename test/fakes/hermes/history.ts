/**
 * The two histories of a session. Rows on disk (SessionRecord.history) are appended one
 * per message; the live agent's history (Runtime.history) is the same except that before
 * each model call Hermes merges consecutive user messages in place (repair_message_sequence,
 * joined with "\n\n"): a failed turn's user message absorbs every later prompt.
 */
import type { HistoryMessage } from './state.js';

interface Histories {
  history: HistoryMessage[];
  rec: { history: HistoryMessage[] };
}

/** A new message goes to both histories. */
export function append(rt: Histories, ...msgs: HistoryMessage[]): void {
  for (const m of msgs) {
    rt.history.push(m);
    rt.rec.history.push(structuredClone(m));
  }
}

/** Replaces both (compaction, /reset, a fork's copy). */
export function replaceAll(rt: Histories, msgs: HistoryMessage[]): void {
  rt.history = msgs;
  rt.rec.history = structuredClone(msgs);
}

/** Merges consecutive user messages in place; returns the last user message's text. */
export function mergeUsers(history: HistoryMessage[]): string {
  for (let i = history.length - 1; i > 0; i--) {
    const a = history[i - 1]!;
    const b = history[i]!;
    if (a.role === 'user' && b.role === 'user') {
      a.content = a.content && b.content ? `${a.content}\n\n${b.content}` : a.content || b.content;
      history.splice(i, 1);
    }
  }
  const last = [...history].reverse().find((m) => m.role === 'user');
  return last?.content ?? '';
}

/** Length of Python's repr() of a plain string (quotes + escapes), near enough. */
const reprLen = (s: string): number => s.length + 2 + (s.match(/[\n\t\\']/g)?.length ?? 0);

/** estimate_messages_tokens_rough: len(str(message)) over the messages, / 4 rounded up. */
export function messagesTokens(history: HistoryMessage[]): number {
  let chars = 0;
  for (const m of history) {
    if (m.role === 'user') chars += 29 + reprLen(m.content);
    else if (m.role === 'assistant') {
      chars += 149 + reprLen(m.content) + (m.reasoning ? reprLen(m.reasoning) + 15 : 0);
      for (const tc of m.tool_calls ?? []) chars += 110 + tc.name.length + JSON.stringify(tc.args).length;
    } else chars += 60 + reprLen(m.content);
  }
  return Math.floor((chars + 3) / 4);
}
