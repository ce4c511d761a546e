/**
 * Text Talaria itself sends the agent besides the user's words (a steer's wrapper or `/steer`, a
 * seed transcript for an overflow, a rewind or another agent). The agent's own history then holds
 * words the user never wrote, and loses Talaria's notes, so its replay (session/load) is not this
 * conversation: the stored thread is. The notice that says what Talaria sent carries this mark,
 * and a thread holding one is shown from the store when reopened.
 */
import type { Entry } from './types.js';

/** The notice data of an injection (its own data plus the mark). */
export function injectedNotice<T extends object>(data: T): T & { injected: true } {
  return { ...data, injected: true };
}

/** Whether Talaria sent the agent anything but the user's words in this thread. */
export function hasInjection(entries: readonly Entry[]): boolean {
  return entries.some((e) => e.kind === 'notice' && (e.data as { injected?: unknown } | undefined)?.injected === true);
}
