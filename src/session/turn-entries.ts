/** What a turn's entries say once it ended (turns.ts): a refused permission, the answer's text. */
import type { Thread } from '../thread/types.js';
import type { Turn } from './turn.js';

/** A permission of this turn was refused (rejected, or cancelled unanswered). */
export function deniedIn(thread: Thread, turn: Turn): boolean {
  return thread.entries
    .slice(turn.firstEntry)
    .some(
      (e) => e.kind === 'tool_call' && (e.permission?.status === 'rejected' || e.permission?.status === 'cancelled'),
    );
}

export function rejectedIn(thread: Thread, turn: Turn): boolean {
  return thread.entries
    .slice(turn.firstEntry)
    .some((e) => e.kind === 'tool_call' && e.permission?.status === 'rejected');
}

/** The turn's answer: its assistant messages' text. */
export function turnText(thread: Thread, turn: Turn): string {
  let text = '';
  const entries = thread.entries;
  for (let i = turn.firstEntry; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.kind === 'assistant_message') text += e.text;
  }
  return text;
}
