/**
 * Text Talaria itself sends the agent besides the user's words (a steer's wrapper or `/steer`, a
 * seed transcript for an overflow, a rewind or another agent). The agent's own history then holds
 * words the user never wrote, and loses Talaria's notes, so its replay (session/load) is not this
 * conversation: the stored thread is. The notice that says what Talaria sent carries this mark,
 * and a thread holding one is shown from the store when reopened.
 */
import { SEED_END, SEED_MARK } from './seed.js';
import type { Entry } from './types.js';

const STEER_MARK = '[Talaria] The user interrupted your answer';
/** How a steer's wrapper ends: the user's correction follows it. */
const STEER_END = 'Continue with the correction that follows.';

/** What a resent steer tells the agent before the user's correction: the interrupted message and the answer so far. */
export function steerContext(ask: string, partial: string): string {
  return (
    `${STEER_MARK} to this message:\n<message>\n${ask}\n</message>\n` +
    (partial
      ? `What you had answered so far:\n<partial_answer>\n${partial}\n</partial_answer>\n`
      : 'You had not answered yet.\n') +
    STEER_END
  );
}

/**
 * The user's own words in a prompt whose text starts with Talaria's context (a resent steer's
 * wrapper, a seed transcript), and which wrapper it was; other text as it is. For a program that
 * answers the user (the demo agent), not for a model, which should read the context too.
 */
export function userWords(text: string): { words: string; wrapper?: 'steer' | 'seed' } {
  // Each wrapper's last line, where it closes (the quoted answer or transcript before it may hold anything).
  const cut = (mark: string, ends: string[], wrapper: 'steer' | 'seed') => {
    if (!text.startsWith(mark)) return undefined;
    const found = ends.map((end) => ({ at: text.indexOf(end), end })).filter((x) => x.at >= 0);
    const first = found.sort((a, b) => a.at - b.at)[0];
    return first ? { words: text.slice(first.at + first.end.length).trim(), wrapper } : undefined;
  };
  return (
    cut(STEER_MARK, [`</partial_answer>\n${STEER_END}`, `You had not answered yet.\n${STEER_END}`], 'steer') ??
    cut(SEED_MARK, [`\n${SEED_END}`], 'seed') ?? { words: text }
  );
}

/** The notice data of an injection (its own data plus the mark). */
export function injectedNotice<T extends object>(data: T): T & { injected: true } {
  return { ...data, injected: true };
}

/** Whether Talaria sent the agent anything but the user's words in this thread. */
export function hasInjection(entries: readonly Entry[]): boolean {
  return entries.some((e) => e.kind === 'notice' && (e.data as { injected?: unknown } | undefined)?.injected === true);
}
