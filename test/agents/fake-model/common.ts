/** Small helpers for reading the loose JSON bodies agents send. */
import type { Json } from './types.js';

export const isObj = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
export const arr = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);
export const objs = (x: unknown): Json[] => arr(x).filter(isObj);
export const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);

/** Text of a content value: a string, or blocks/parts carrying `text` (any text-ish type). */
export function textsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  const out: string[] = [];
  for (const b of objs(content)) {
    const t = str(b['text']);
    if (t !== undefined && b['thought'] !== true) out.push(t);
  }
  return out;
}

/**
 * The user's own words: agents put context blocks next to the prompt (Claude Code
 * `<system-reminder>`, kilo `<environment_details>`); drop them when anything else is there.
 * Agents fold a prompt whose turn failed into the next user message (Claude Code, qwen): the
 * newest prompt is the last block, and an old `[[error: …]]` before it must not steer again.
 */
export function userText(texts: string[]): string {
  const own = texts.filter((t) => !/^\s*<[a-z][\w-]*>/i.test(t));
  return own.length > 1 ? own[own.length - 1]! : (own.length > 0 ? own : texts).join('\n');
}

/** A tool result's text, whatever shape it came in. */
export function resultText(x: unknown): string {
  if (typeof x === 'string') return x;
  if (Array.isArray(x)) return textsOf(x).join('\n');
  if (isObj(x)) {
    for (const k of ['output', 'content', 'result', 'llmContent', 'text']) {
      if (k in x) return resultText(x[k]);
    }
  }
  return JSON.stringify(x ?? '');
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
