/**
 * Splits markdown into independent blocks so a streamed message re-parses only its last block:
 * at blank lines outside fenced code, and a paragraph longer than MAX at a sentence end (each
 * block is laid out on its own: a growing message does not re-lay out what came before).
 *
 * BlockStream does it as the text arrives: it keeps only the text of the block being written
 * (and the head of the current line), so a chunk costs its own size plus that block's, never
 * the size of the whole message. What it returns equals splitBlocks of all the text so far.
 */
const MAX = 1200;
const FENCE = /^\s*(```|~~~)/;

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

/** The open block: where its paragraph starts, where its current piece starts. */
interface Open {
  start: number;
  from: number;
  cont: boolean;
  /** No more cuts in this paragraph (it is fenced code, or a piece found no sentence end). */
  noCut: boolean;
}

export class BlockStream {
  /** Finished blocks and the finished pieces of the open paragraph: never change again. */
  private readonly done: Placed[] = [];
  /** The text from `base` on: the open piece (or the current line when no block is open). */
  private buf = '';
  private base = 0;
  private len = 0;
  /** The current (not yet ended) line: where it starts, its first 16 characters, its length. */
  private lineStart = 0;
  private lineHead = '';
  private lineLen = 0;
  private lineBlank = true;
  private fence: string | undefined;
  private open: Open | undefined;
  /** Pieces of the last answer that were not final yet: reused when they come out the same. */
  private recent = new Map<number, Placed>();
  private out: Placed[] | undefined;

  get length(): number {
    return this.len;
  }

  /** How much text it holds (the open piece, not the whole message). */
  get held(): number {
    return this.buf.length;
  }

  push(s: string): void {
    if (s === '') return;
    this.out = undefined;
    this.buf += s;
    let i = 0;
    for (;;) {
      const nl = s.indexOf('\n', i);
      const seg = nl < 0 ? s.slice(i) : s.slice(i, nl);
      if (this.lineHead.length < 16) this.lineHead += seg.slice(0, 16 - this.lineHead.length);
      if (this.lineBlank && seg.trim() !== '') this.lineBlank = false;
      this.lineLen += seg.length;
      if (nl < 0) break;
      this.endLine();
      i = nl + 1;
    }
    this.len += s.length;
    // A line that can no longer be blank opens its block now, so a long line is cut as it grows.
    if (!this.open && !this.isBlank()) this.open = { start: this.lineStart, from: this.lineStart, cont: false, noCut: false };
    this.cutEarly();
    // Only the open piece is needed (a block that could still open starts at the current line).
    const keep = this.open ? this.open.from : this.lineStart;
    if (keep - this.base > 4096) {
      this.buf = this.buf.slice(keep - this.base);
      this.base = keep;
    }
  }

  /** The blocks of all the text so far (the same objects for what did not change). */
  blocks(): Block[] {
    if (this.out) return this.out;
    // The current line as if the text ended here (what a whole split of this text does).
    let open = this.open ? { ...this.open } : undefined;
    const tail: Placed[] = [];
    const f = FENCE.exec(this.lineHead)?.[1];
    if (!this.fence && !f && this.isBlank()) {
      if (open) this.close(open, this.lineStart > 0 ? this.lineStart - 1 : 0, tail);
      open = undefined;
    } else open ??= { start: this.lineStart, from: this.lineStart, cont: false, noCut: false };
    if (open) this.close(open, this.len, tail);
    this.recent = new Map(tail.map((b) => [b.start, b]));
    this.out = this.done.length === 0 ? tail : this.done.concat(tail);
    return this.out;
  }

  private isBlank(): boolean {
    return this.lineLen < 200 && this.lineBlank;
  }

  private text(from: number, to: number): string {
    return this.buf.slice(from - this.base, to - this.base);
  }

  private endLine(): void {
    const pos = this.lineStart;
    const f = FENCE.exec(this.lineHead)?.[1];
    if (this.fence) {
      if (f === this.fence) this.fence = undefined;
    } else if (f) {
      this.fence = f;
      this.open ??= { start: pos, from: pos, cont: false, noCut: false };
    } else if (this.isBlank()) {
      if (this.open) this.close(this.open, pos > 0 ? pos - 1 : 0, this.done);
      this.open = undefined;
    } else this.open ??= { start: pos, from: pos, cont: false, noCut: false };
    this.lineStart = pos + this.lineLen + 1;
    this.lineHead = '';
    this.lineLen = 0;
    this.lineBlank = true;
  }

  /** Fenced code is never cut; decided on the paragraph's first characters (its first line). */
  private fenced(o: Open): boolean {
    if (o.from === o.start && !o.noCut && FENCE.test(this.text(o.start, o.start + 8))) o.noCut = true;
    return o.noCut;
  }

  /**
   * Cuts of the open paragraph that no later text can change: the paragraph surely reaches past
   * the cut's window (the current line has text, or it is inside a fence), so the cut is final.
   */
  private cutEarly(): void {
    const o = this.open;
    if (!o || this.fenced(o)) return;
    const known = this.fence || !this.isBlank() ? this.len : this.lineStart - 1;
    while (!o.noCut && known - o.from > MAX + 1) this.cutOne(o, this.done);
  }

  private cutOne(o: Open, into: Placed[]): void {
    const at = this.buf.lastIndexOf('. ', o.from + MAX - this.base);
    const cut = at < 0 ? -1 : at + this.base;
    if (cut < o.from + MAX / 2) {
      o.noCut = true;
      return;
    }
    into.push(this.piece(o, cut + 2));
    o.from = cut + 2;
    o.cont = true;
  }

  /** Ends the open block at `end`: its remaining cuts, then its last piece. */
  private close(o: Open, end: number, into: Placed[]): void {
    if (!this.fenced(o)) while (!o.noCut && end - o.from > MAX) this.cutOne(o, into);
    into.push(this.piece(o, end));
  }

  private piece(o: Open, end: number): Placed {
    const old = this.recent.get(o.from);
    if (old && old.para === o.start && old.cont === o.cont && old.text.length === end - o.from) return old;
    return { text: this.text(o.from, end), cont: o.cont, start: o.from, para: o.start };
  }
}

/** The whole-text split (the reference BlockStream must equal; also used for text that does not stream). */
export function splitBlocks(text: string): Block[] {
  const out: Block[] = [];
  let start = -1; // start of the current block (-1: none)
  let fence: string | undefined;
  const flush = (end: number): void => {
    if (start < 0) return;
    // Long paragraphs are cut at a sentence end.
    let from = start;
    let cont = false;
    if (!FENCE.test(text.slice(start, start + 8))) {
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
    const f = FENCE.exec(text.slice(pos, Math.min(end, pos + 16)))?.[1];
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

/**
 * A splitter for one message given its whole text each time: when the text only grew, only the
 * new part is fed (earlier blocks are the same objects); otherwise it starts again.
 */
export function blockSplitter(): (text: string) => Block[] {
  let prevText = '';
  let s = new BlockStream();
  return (text) => {
    if (text !== prevText) {
      if (!(text.length > prevText.length && text.startsWith(prevText))) {
        s = new BlockStream();
        s.push(text);
      } else s.push(text.slice(prevText.length));
      prevText = text;
    }
    return s.blocks();
  };
}

/**
 * The markdown of a piece of a cut paragraph. A continuing piece starts mid-paragraph: what
 * would open a block there ("1. ", "- ", "# ", "> ", an indent) is text in the whole paragraph,
 * so it is escaped (or dropped: leading spaces, which the paragraph shows as the one at the cut).
 */
export function pieceSource(b: Block): string {
  if (!b.cont) return b.text;
  return b.text
    .replace(/^\s+/, '')
    .replace(/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2')
    .replace(/^([-+*>#])(?=\s|$|#)/, '\\$1');
}
