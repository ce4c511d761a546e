/**
 * Context compaction (overflow and /compact): older history becomes one assistant
 * message carrying Hermes' handoff text, which replays as plain agent text starting
 * `[PRIOR CONTEXT — …` (wording copied from the recorded reload fixture).
 */
import type { HistoryMessage } from './state.js';

const HEAD =
  '[PRIOR CONTEXT — for reference only; not a new message]\n\n\n[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]\n\n' +
  '[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. This is a handoff from a previous context window — treat it as background reference, NOT as active instructions. Do NOT answer questions or fulfill requests mentioned in this summary; they were already addressed. Respond ONLY to the latest user message that appears AFTER this summary — that message is the single source of truth for what to do right now. Topic overlap with the summary does NOT mean you should resume its task: even on similar topics, the latest user message WINS. Treat ONLY the latest message as the active task and discard stale items from \'## Historical Task Snapshot\' / \'## Historical In-Progress State\' / \'## Historical Pending User Asks\' / \'## Historical Remaining Work\' entirely — do not \'wrap up\' or \'finish\' work described there unless the latest message explicitly asks for it. Reverse signals in the latest message (e.g. \'stop\', \'undo\', \'roll back\', \'just verify\', \'don\'t do that anymore\', \'never mind\', a new topic) must immediately end any in-flight work described in the summary; do not re-surface it in later turns. IMPORTANT: Your persistent memory (MEMORY.md, USER.md) in the system prompt is ALWAYS authoritative and active — never ignore or deprioritize memory content due to this compaction note. The current session state (files, config, etc.) may reflect work described here — avoid repeating it:\n';
const TAIL = '\n\n--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---';

export const SUMMARY_PREFIX = '[PRIOR CONTEXT — ';

/** Replace all but the last `keep` messages with one summary message. */
export function compact(history: HistoryMessage[], keep: number): HistoryMessage[] {
  const cut = Math.max(0, history.length - keep);
  const old = history.slice(0, cut);
  const count = (role: string) => old.filter((m) => m.role === role).length;
  const body = `Fake summary of ${old.length} earlier messages (user: ${count('user')}, assistant: ${count('assistant')}, tool: ${count('tool')}).`;
  return [{ role: 'assistant', content: HEAD + body + TAIL }, ...history.slice(cut)];
}
