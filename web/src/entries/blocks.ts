/**
 * Splits markdown into independent blocks so a streamed message re-parses only its last block:
 * at blank lines outside fenced code, and a paragraph longer than MAX at a sentence end (each
 * block is laid out on its own: a growing message does not re-lay out what came before).
 */
const MAX = 4000;

export interface Block {
  text: string;
  /** A piece of a long paragraph that continues the previous one (drawn inline). */
  cont: boolean;
}

export function splitBlocks(text: string): Block[] {
  const out: Block[] = [];
  let start = -1; // start of the current block (-1: none)
  let fence: string | undefined;
  const flush = (end: number): void => {
    if (start < 0) return;
    // Long paragraphs are cut at a sentence end: positions only, no copies of the rest.
    let from = start;
    let cont = false;
    if (!/^\s*(```|~~~)/.test(text.slice(start, start + 8))) {
      while (end - from > MAX) {
        const cut = text.lastIndexOf('. ', from + MAX);
        if (cut < from + MAX / 2) break;
        out.push({ text: text.slice(from, cut + 2), cont });
        from = cut + 2;
        cont = true;
      }
    }
    out.push({ text: text.slice(from, end), cont });
    start = -1;
  };
  let pos = 0;
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(pos, Math.min(end, pos + 16));
    const f = /^\s*(```|~~~)/.exec(line)?.[1];
    const blank = end - pos < 200 && text.slice(pos, end).trim() === '';
    if (fence) {
      if (f === fence) fence = undefined;
    } else if (f) {
      fence = f;
      if (start < 0) start = pos;
    } else if (blank) {
      flush(pos > 0 ? pos - 1 : 0);
    } else if (start < 0) start = pos;
    if (nl < 0) break;
    pos = nl + 1;
  }
  flush(text.length);
  return out;
}
