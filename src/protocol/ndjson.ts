/**
 * Byte-level NDJSON line decoder: Buffer chunks in, complete lines (strings) out.
 *
 * Why bytes and not a string buffer: a chunk may end inside a UTF-8 sequence, and a line may
 * be far larger than we are willing to hold. Lines are found with Buffer#indexOf (native), and
 * decoded once, whole, so split multi-byte characters come out right. A line longer than
 * `maxLineBytes` is never buffered: we drop bytes until the next newline and report it.
 */

import { isAscii } from 'node:buffer';

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
  // Set once the owner gave up on this input: no more lines are emitted.
  private stopped = false;
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
    if (this.stopped) return;
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
      if (this.stopped) return;
      start = nl + 1;
    }
    const last = chunk.lastIndexOf(LF);
    if (last >= start) {
      if (last - start <= this.maxLineBytes && isAscii(chunk.subarray(start, last))) {
        // Fast path: no line in here can be too long, and all of it is ASCII. Decode all
        // complete lines at once (a one-byte copy) and split the string.
        this.emitText(chunk.toString('latin1', start, last));
      } else {
        // Any non-ASCII byte makes V8 decode to a two-byte string: decoded per line, only the
        // lines that hold one pay for it (JSON.parse of a one-byte line is faster, and so is
        // everything made of its strings). Agents' text is rarely all ASCII.
        this.emitBytes(chunk, start, last);
      }
      start = last + 1;
    }
    if (start < len && !this.stopped) this.stash(chunk, start, len);
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
    while (!this.stopped) {
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
    while (start <= last && !this.stopped) {
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
    if (this.stopped) return;
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

  /**
   * Give up on this input: the rest of the current chunk and every later one is ignored (a
   * flood of garbage must not keep costing us a slice per line after we closed).
   */
  stop(): void {
    this.stopped = true;
    this.carry = [];
    this.carryBytes = 0;
    this.discarding = false;
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

/**
 * Whether a line could start a JSON value after JSON whitespace: `{ [ " - 0-9 t f n`. Anything
 * else is certainly not JSON, so it is reported without paying for a JSON.parse exception (the
 * cost that made a `yes` flood take minutes). A JSON-RPC message itself must start with `{`.
 */
export function mayBeJson(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a) continue;
    return (
      c === 0x7b ||
      c === 0x5b ||
      c === 0x22 ||
      c === 0x2d ||
      (c >= 0x30 && c <= 0x39) ||
      c === 0x74 ||
      c === 0x66 ||
      c === 0x6e
    );
  }
  return false;
}

/** Consecutive bad lines after which an input is judged a flood (reset by a valid frame). */
export const DEFAULT_MAX_GARBAGE_LINES = 1000;
/** Bytes without a valid frame after which an input is judged a flood (at least 2 max lines). */
export const DEFAULT_MAX_GARBAGE_BYTES = 64 * 1024 * 1024;
/** A run of garbage slower than this is chatter, not a flood: it starts over instead of failing. */
export const DEFAULT_GARBAGE_WINDOW_MS = 10_000;

export interface GarbageLimits {
  maxLines?: number;
  maxBytes?: number;
  windowMs?: number;
}

/**
 * Counts what arrives between valid frames. An agent that prints a banner or a warning between
 * frames is fine; one whose stdout is no ACP at all (`--agent-cmd yes`, a shell, a log tail)
 * fills the limit within the window, and `exceeded()` says why, so the connection can be closed
 * with a clear error instead of spinning until a timeout. Counting, not timing: the window only
 * forgives slow chatter, it never decides that a fast flood is fine.
 */
export class GarbageMeter {
  readonly maxLines: number;
  readonly maxBytes: number;
  readonly windowMs: number;
  private lines = 0;
  private bytes = 0;
  private since = 0;
  private readonly now: () => number;

  constructor(limits: GarbageLimits = {}, now: () => number = () => performance.now()) {
    this.maxLines = limits.maxLines ?? DEFAULT_MAX_GARBAGE_LINES;
    this.maxBytes = limits.maxBytes ?? DEFAULT_MAX_GARBAGE_BYTES;
    this.windowMs = limits.windowMs ?? DEFAULT_GARBAGE_WINDOW_MS;
    if (!(this.maxLines > 0) || !(this.maxBytes > 0)) throw new RangeError('garbage limits must be positive');
    this.now = now;
  }

  /** Bytes read from the input, counted per chunk (an endless line counts too); a frame resets them. */
  read(n: number): void {
    if (this.lines === 0 && this.bytes === 0) this.since = this.now();
    this.bytes += n;
  }

  /** One line that was not a valid frame. */
  badLine(): void {
    if (this.lines === 0 && this.bytes === 0) this.since = this.now();
    this.lines++;
  }

  /** A valid frame: the run of garbage is over. */
  frame(): void {
    this.lines = 0;
    this.bytes = 0;
  }

  get garbageLines(): number {
    return this.lines;
  }

  /** Why the input is a flood, or undefined. */
  exceeded(): string | undefined {
    const overLines = this.lines >= this.maxLines;
    const overBytes = this.bytes > this.maxBytes;
    if (!overLines && !overBytes) return undefined;
    if (this.now() - this.since > this.windowMs) {
      // Slow chatter over a long time, not a flood: start counting again.
      this.lines = 0;
      this.bytes = 0;
      this.since = this.now();
      return undefined;
    }
    return overLines
      ? `${this.lines} lines in a row were not JSON-RPC`
      : `${this.bytes} bytes arrived without a valid JSON-RPC frame`;
  }
}
