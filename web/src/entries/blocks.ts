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

/** A block with where it sits: `para` is where its paragraph (or fenced block) starts. */
interface Placed extends Block {
  start: number;
  para: number;
}

export function splitBlocks(text: string): Block[] {
  return split(text, 0, []);
}

/**
 * A splitter for one streaming message: when the text only grew, the blocks before the last
 * paragraph are kept (the same objects) and only that paragraph is split again — each render
 * costs the size of the last paragraph, not of the whole message. Same result as splitBlocks.
 */
export function blockSplitter(): (text: string) => Block[] {
  let prevText = '';
  let prev: Placed[] = [];
  return (text) => {
    if (text === prevText) return prev;
    const last = prev.at(-1);
    if (last && text.length > prevText.length && text.startsWith(prevText)) {
      // A paragraph start is a line start outside any fence: splitting from there is what a whole split does.
      const keep = prev.filter((b) => b.start < last.para);
      // Pieces of the last paragraph cut before stay as they were (same cuts): reused, not copied again.
      const reuse = new Map(prev.filter((b) => b.para === last.para && b !== last).map((b) => [b.start, b]));
      prev = split(text, last.para, keep, reuse);
    } else prev = split(text, 0, []);
    prevText = text;
    return prev;
  };
}

function split(text: string, from0: number, out: Placed[], reuse?: Map<number, Placed>): Placed[] {
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
        const old = reuse?.get(from);
        out.push(old && old.para === start && old.start + old.text.length === cut + 2 ? old : { text: text.slice(from, cut + 2), cont, start: from, para: start });
        from = cut + 2;
        cont = true;
      }
    }
    out.push({ text: text.slice(from, end), cont, start: from, para: start });
    start = -1;
  };
  let pos = from0;
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
