/** What the Hub sends of a session: a streamed entry as its appended text (`entry.appended`), a thread as JSON. */
import type { SessionSnapshot } from './contract/index.js';

/**
 * The text added when `next` is `prev` with a longer text and nothing else changed; else undefined.
 * `hint`: the core's word that `next`'s text is its previous version's plus `hint` (a streamed
 * chunk); with `prev` that previous version (the length checks it), the texts are not compared:
 * `startsWith` flattens the streamed text (a rope of its chunks), a copy of the whole message per
 * chunk, quadratic in its length (5,000 chunks: about 0.9 s of server CPU).
 */
export function appended(prev: unknown, next: unknown, hint?: string): string | undefined {
  if (!prev || !next || typeof prev !== 'object' || typeof next !== 'object') return undefined;
  const a = prev as Record<string, unknown>;
  const b = next as Record<string, unknown>;
  if (typeof a.text !== 'string' || typeof b.text !== 'string' || b.text.length <= a.text.length) return undefined;
  const known = hint !== undefined && b.text.length === a.text.length + hint.length;
  if (!known && !b.text.startsWith(a.text)) return undefined;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    if (k === 'text') continue;
    const x = a[k];
    const y = b[k];
    if (x === y) continue;
    if (Array.isArray(x) && Array.isArray(y) && x.length === y.length && x.every((v, i) => v === y[i])) continue;
    return undefined;
  }
  return known ? hint : b.text.slice(a.text.length);
}

export function threadJson(t: {
  entries: unknown[];
  plan: unknown[] | null;
  availableCommands: unknown[];
  currentModeId?: string;
  configOptions?: unknown[];
  title?: string;
  updatedAt?: string;
  context: unknown;
  meta?: unknown;
  planTurnId?: string;
}): SessionSnapshot['thread'] {
  return {
    entries: t.entries.slice(),
    plan: t.plan ? t.plan.slice() : null,
    availableCommands: t.availableCommands.slice(),
    context: t.context,
    ...(t.currentModeId !== undefined ? { currentModeId: t.currentModeId } : {}),
    ...(t.configOptions !== undefined ? { configOptions: t.configOptions } : {}),
    ...(t.title !== undefined ? { title: t.title } : {}),
    ...(t.updatedAt !== undefined ? { updatedAt: t.updatedAt } : {}),
    ...(t.meta !== undefined ? { meta: t.meta } : {}),
    ...(t.planTurnId !== undefined ? { planTurnId: t.planTurnId } : {}),
  };
}
