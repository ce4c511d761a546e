/**
 * Where a session's plan was made: the user message of the turn the server says set it
 * (`planTurnId`, `plan.updated`'s turnId), so every browser draws it there. For a session recorded
 * before the server kept that turn, the place this browser saw, kept in localStorage.
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

/** The user message that started turn `turnId`. */
export function turnStartId(entries: unknown[], turnId: string | undefined): string | undefined {
  if (turnId === undefined) return undefined;
  for (const e of entries)
    if (isObj(e) && e.kind === 'user_message' && e.turnId === turnId && typeof e.id === 'string') return e.id;
  return undefined;
}

/** Where the session's plan was made: the server's turn for it, else where this browser last saw it made. */
export function planAtOf(sessionId: string, entries: unknown[], planTurnId?: string): { planAt?: string } {
  const start = turnStartId(entries, planTurnId);
  if (start !== undefined) return { planAt: start };
  let at: string | null = null;
  try {
    at = storage()?.getItem(PLAN_AT(sessionId)) ?? null;
  } catch {
    return {};
  }
  return at && entries.some((e) => isObj(e) && e.id === at) ? { planAt: at } : {};
}
