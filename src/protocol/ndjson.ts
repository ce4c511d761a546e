/**
 * Byte-level NDJSON line decoder: Buffer chunks in, complete lines (strings) out.
 *
 * Why bytes and not a string buffer: a chunk may end inside a UTF-8 sequence, and a line may
 * be far larger than we are willing to hold. Lines are found with Buffer#indexOf (native), and
 * decoded once, whole, so split multi-byte characters come out right. A line longer than
 * `maxLineBytes` is never buffered: we drop bytes until the next newline and report it.
 */

export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024;

const LF = 10;
const CR = 13;
const PREVIEW_BYTES = 200;

export interface OversizeLine {
  /** Total bytes of the dropped line (without the newline). */
  bytes: number;
  /** The first bytes of the line, decoded, for display. */
  preview: string;
}

export interface LineDecoderOptions {
  maxLineBytes?: number;
  /** Called once per non-empty line, CR stripped. */
  onLine: (line: string) => void;
  onOversize?: (info: OversizeLine) => void;
}

export class LineDecoder {
  readonly maxLineBytes: number;
  private readonly onLine: (line: string) => void;
  private readonly onOversize: (info: OversizeLine) => void;
  // The unterminated tail of previous chunks (copied: callers may reuse their buffers).
  private carry: Buffer[] = [];
  private carryBytes = 0;
  // Set while skipping an oversize line up to its newline.
  private discarding = false;
  private discardBytes = 0;
  private discardPreview = '';

  constructor(options: LineDecoderOptions) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!(this.maxLineBytes > 0)) throw new RangeError('maxLineBytes must be positive');
    this.onLine = options.onLine;
    this.onOversize = options.onOversize ?? (() => {});
  }

  push(chunk: Buffer): void {
    const len = chunk.length;
    let start = 0;
    // First finish a line carried over from earlier chunks (or being discarded).
    if (this.discarding || this.carryBytes > 0) {
      const nl = chunk.indexOf(LF);
      if (nl === -1) {
        this.stash(chunk, 0, len);
        return;
      }
      this.completeCarried(chunk, nl);
      start = nl + 1;
    }
    const last = chunk.lastIndexOf(LF);
    if (last >= start) {
      if (last - start <= this.maxLineBytes) {
        // Fast path: no line in here can be too long. Decode all complete lines at once
        // (they end on a newline, so no UTF-8 sequence is cut) and split the string.
        this.emitText(chunk.toString('utf8', start, last));
      } else {
        this.emitBytes(chunk, start, last);
      }
      start = last + 1;
    }
    if (start < len) this.stash(chunk, start, len);
  }

  /** The carried line ends at `nl` in `chunk`. */
  private completeCarried(chunk: Buffer, nl: number): void {
    if (this.discarding) {
      this.discardBytes += nl;
      this.finishDiscard();
      return;
    }
    const total = this.carryBytes + nl;
    if (total > this.maxLineBytes) {
      this.onOversize({ bytes: total, preview: this.carryPreview(chunk.subarray(0, nl)) });
    } else {
      this.carry.push(chunk.subarray(0, nl));
      const line = Buffer.concat(this.carry, total);
      this.emit(line, 0, total);
    }
    this.carry = [];
    this.carryBytes = 0;
  }

  /** Complete lines in a string (newline-separated, no trailing newline). */
  private emitText(text: string): void {
    let i = 0;
    for (;;) {
      const j = text.indexOf('\n', i);
      let end = j === -1 ? text.length : j;
      if (end > i && text.charCodeAt(end - 1) === CR) end--;
      if (end > i) this.onLine(text.slice(i, end));
      if (j === -1) return;
      i = j + 1;
    }
  }

  /** Complete lines in chunk[start, last] (last is a newline), checking each line's size. */
  private emitBytes(chunk: Buffer, start: number, last: number): void {
    while (start <= last) {
      const nl = chunk.indexOf(LF, start);
      if (nl - start > this.maxLineBytes) {
        this.onOversize({ bytes: nl - start, preview: preview(chunk, start, nl) });
      } else {
        this.emit(chunk, start, nl);
      }
      start = nl + 1;
    }
  }

  /** End of input: a last line without a newline still counts. */
  end(): void {
    if (this.discarding) {
      this.finishDiscard();
    } else if (this.carryBytes > 0) {
      const line = Buffer.concat(this.carry, this.carryBytes);
      this.carry = [];
      this.carryBytes = 0;
      this.emit(line, 0, line.length);
    }
  }

  /** Bytes held for an unterminated line (for tests and stats). */
  get pendingBytes(): number {
    return this.carryBytes;
  }

  private stash(chunk: Buffer, start: number, end: number): void {
    const n = end - start;
    if (this.discarding) {
      this.discardBytes += n;
      return;
    }
    if (this.carryBytes + n > this.maxLineBytes) {
      // Too big already: drop what we hold and skip to the next newline.
      this.discardPreview = this.carryPreview(chunk.subarray(start, end));
      this.discardBytes = this.carryBytes + n;
      this.discarding = true;
      this.carry = [];
      this.carryBytes = 0;
      return;
    }
    this.carry.push(Buffer.from(chunk.subarray(start, end)));
    this.carryBytes += n;
  }

  /** The first bytes of the carried line followed by `next`, decoded. */
  private carryPreview(next: Buffer): string {
    const parts: Buffer[] = [];
    let n = 0;
    for (const b of this.carry) {
      if (n >= PREVIEW_BYTES) break;
      parts.push(b);
      n += b.length;
    }
    if (n < PREVIEW_BYTES) parts.push(next);
    const head = Buffer.concat(parts);
    return preview(head, 0, head.length);
  }

  private finishDiscard(): void {
    const info = { bytes: this.discardBytes, preview: this.discardPreview };
    this.discarding = false;
    this.discardBytes = 0;
    this.discardPreview = '';
    this.onOversize(info);
  }

  private emit(buf: Buffer, start: number, end: number): void {
    if (end > start && buf[end - 1] === CR) end--;
    if (end === start) return;
    this.onLine(buf.toString('utf8', start, end));
  }
}

function preview(buf: Buffer, start: number, end: number): string {
  return buf.toString('utf8', start, Math.min(end, start + PREVIEW_BYTES));
}
