/**
 * Where a session's plan was made (the user message of its turn), kept per browser in
 * localStorage so a reload places the plan under its turn again (session-store.ts).
 */
import { isObj } from './entries.js';

const PLAN_AT = (id: string): string => `talaria.planAt.${id}`;
/** The page's localStorage (this file is also compiled without the DOM types, for the tests). */
const storage = (): { getItem(k: string): string | null; setItem(k: string, v: string): void } | undefined =>
  (globalThis as { localStorage?: { getItem(k: string): string | null; setItem(k: string, v: string): void } }).localStorage;

/** A fork or branch made here keeps its plan where it was (it copies the entries and their ids). */
export function copyPlanAt(from: string, to: string): void {
  const at = storage()?.getItem(PLAN_AT(from));
  if (at) keepPlanAt(to, at);
}

export function keepPlanAt(sessionId: string, at: string): void {
  try {
    storage()?.setItem(PLAN_AT(sessionId), at);
  } catch {
    // No storage (a private window): the plan is placed by the thread after a reload.
  }
}

/** Where this browser last saw the session's plan made, if that entry is still in the thread. */
export function planAtOf(sessionId: string, entries: unknown[]): { planAt?: string } {
  let at: string | null = null;
  try {
    at = storage()?.getItem(PLAN_AT(sessionId)) ?? null;
  } catch {
    return {};
  }
  return at && entries.some((e) => isObj(e) && e.id === at) ? { planAt: at } : {};
}
