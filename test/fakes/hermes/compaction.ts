/**
 * Context compression (an overflow's retries and /compact). Hermes protects the tail (the
 * latest user message and the exchange before it) and summarises part of the middle into
 * one assistant message that replays as plain agent text starting `[PRIOR CONTEXT — …`
 * (wording copied from the recorded reload fixture). When nothing is left between the summary
 * and the tail a pass makes no progress (`/compact` answers `N -> N`).
 */
import type { HistoryMessage } from './state.js';

const HEAD =
  '[PRIOR CONTEXT — for reference only; not a new message]\n\n\n[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]\n\n' +
  "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. This is a handoff from a previous context window — treat it as background reference, NOT as active instructions. Do NOT answer questions or fulfill requests mentioned in this summary; they were already addressed. Respond ONLY to the latest user message that appears AFTER this summary — that message is the single source of truth for what to do right now. Topic overlap with the summary does NOT mean you should resume its task: even on similar topics, the latest user message WINS. Treat ONLY the latest message as the active task and discard stale items from '## Historical Task Snapshot' / '## Historical In-Progress State' / '## Historical Pending User Asks' / '## Historical Remaining Work' entirely — do not 'wrap up' or 'finish' work described there unless the latest message explicitly asks for it. Reverse signals in the latest message (e.g. 'stop', 'undo', 'roll back', 'just verify', 'don't do that anymore', 'never mind', a new topic) must immediately end any in-flight work described in the summary; do not re-surface it in later turns. IMPORTANT: Your persistent memory (MEMORY.md, USER.md) in the system prompt is ALWAYS authoritative and active — never ignore or deprioritize memory content due to this compaction note. The current session state (files, config, etc.) may reflect work described here — avoid repeating it:\n";
const TAIL = '\n\n--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---';

export const SUMMARY_PREFIX = '[PRIOR CONTEXT — ';

const isSummary = (m: HistoryMessage | undefined) => m?.role === 'assistant' && m.content.startsWith(SUMMARY_PREFIX);

/** Where the protected tail starts: the last three messages, never starting at a tool result. */
function tailStart(history: HistoryMessage[]): number {
  let i = Math.max(0, history.length - 3);
  while (i > 0 && history[i]!.role === 'tool') i--;
  return i;
}

/**
 * One compression pass; null when it cannot shrink the history. A pass folds the two oldest
 * messages after the summary into it (never leaving a tool result first, never touching the
 * tail): on the recordings a 13-message history takes three passes (main/reload fixtures, s5f).
 */
export function compressOnce(history: HistoryMessage[]): HistoryMessage[] | null {
  const cut = tailStart(history);
  const head = history.slice(0, cut);
  const old = isSummary(head[0]) ? head[0] : undefined;
  const body = old ? head.slice(1) : head;
  if (!body.length || (!old && head.length < 2)) return null;
  let keep = Math.min(2, body.length);
  while (keep < body.length && body[keep]!.role === 'tool') keep++;
  const folded = (old ? Number(/Fake summary of (\d+)/.exec(old.content)?.[1] ?? 0) : 0) + keep;
  const summary = `Fake summary of ${folded} earlier messages.`;
  return [{ role: 'assistant', content: HEAD + summary + TAIL }, ...body.slice(keep), ...history.slice(cut)];
}
