/**
 * A streamed message's text kept as the chunks it came in. Appending a chunk is O(1) and the
 * markdown view feeds only the chunks it has not seen (entries/blocks.ts): no render copies or
 * re-reads the whole message. `text` is still there for every other reader, joined on first read.
 */
import { isObj, type Obj } from './entries.js';

const PARTS = Symbol('talaria.textParts');

export interface TextParts {
  /** Shared and only appended to: a later entry may hold more; this one ends at `count`. */
  readonly chunks: readonly string[];
  readonly count: number;
}

export function partsOf(e: unknown): TextParts | undefined {
  return isObj(e) ? (e[PARTS as unknown as string] as TextParts | undefined) : undefined;
}

/** A message entry with `add` appended to its text: a new object; the old one is left as it was. */
export function appendText(old: Obj, add: string): Obj {
  const prev = partsOf(old);
  let chunks: string[];
  if (prev && prev.count === prev.chunks.length) chunks = prev.chunks as string[];
  else chunks = prev ? prev.chunks.slice(0, prev.count) : [typeof old.text === 'string' ? old.text : ''];
  chunks.push(add);
  const parts: TextParts = { chunks, count: chunks.length };
  const out: Obj = {};
  for (const k of Object.keys(old)) if (k !== 'text') out[k] = old[k];
  let joined: string | undefined;
  Object.defineProperty(out, 'text', { enumerable: true, configurable: true, get: () => (joined ??= chunks.slice(0, parts.count).join('')) });
  Object.defineProperty(out, PARTS, { enumerable: false, value: parts });
  return out;
}

/** The last `n` characters of a text or of its chunks (without joining the whole). */
export function tailOf(source: string | TextParts, n: number): string {
  if (typeof source === 'string') return source.slice(-n);
  let s = '';
  for (let i = source.count - 1; i >= 0 && s.length < n; i--) s = source.chunks[i] + s;
  return s.slice(-n);
}
