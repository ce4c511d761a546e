/**
 * What the recorder holds while the store cannot take a commit for now (`store_busy`: SQLite's
 * lock held past its busy timeout by another process, a PostgreSQL server restarting): the
 * batches that failed and every batch after them, in order, retried with backoff until they
 * commit. Nothing is lost to a short outage; seqs stay contiguous because they are allocated
 * inside the commit from what is on disk, so a batch committed late still gets the next ones.
 *
 * Bounded: past `maxFrames`, `maxBytes` or `maxMs` the hold gives up and drops what it holds,
 * saying how many frames and why (the recorder's onError). While it holds, `recording.delayed`
 * says so (first failure, then after each failed retry); `recording.caught_up` once it drains.
 *
 * Retries commit on the main connection (one road for the inline and the writer-thread paths):
 * each attempt blocks for at most the store's own busy or query timeout.
 */
import { unpackFrames, type PackedFrames, type RawWireColumns } from '../store/wire-blocks.js';
import { TalariaError } from '../protocol/errors.js';
import type { Logger } from '../protocol/types.js';
import type { StoreError, Store } from '../store/index.js';
import type { WriterBatch } from '../store/writer-batch.js';

/** A batch with what the recorder reports of it. */
export interface HeldBatch {
  /** Its place in the recorder's order (batches commit in this order). */
  no: number;
  batch: WriterBatch;
  frames: number;
  entries: number;
}

export interface HoldLimits {
  /** Frames held at most before giving up (default DEFAULT_HOLD.maxFrames). */
  maxFrames: number;
  /** Bytes held at most (frames, entries, the rest), before giving up. */
  maxBytes: number;
  /** How long an outage is waited out (ms) before giving up. */
  maxMs: number;
  /** First retry after this long (ms); doubles up to retryMaxMs. */
  retryMinMs: number;
  retryMaxMs: number;
}

/**
 * A few minutes of a busy stream: a flood runs ~2,000 frames/s for seconds, a streamed reply
 * tens to hundreds a second; frames are a few hundred bytes.
 */
export const DEFAULT_HOLD: HoldLimits = {
  maxFrames: 200_000,
  maxBytes: 64 << 20,
  maxMs: 5 * 60_000,
  retryMinMs: 50,
  retryMaxMs: 2_000,
};

export type RecordingDelayEvent =
  | {
      type: 'recording.delayed';
      /** Frames waiting for the store (held batches). */
      frames: number;
      bytes: number;
      /** When the store stopped taking commits (epoch ms). */
      since: number;
      /** The last failure (a StoreError `store_busy`). */
      error: Error;
    }
  | {
      type: 'recording.caught_up';
      /** Frames that waited and are now on disk. */
      frames: number;
      /** How long the store was out (ms). */
      outageMs: number;
    };

export interface HoldDeps {
  limits: HoldLimits;
  /** Commits a batch on the main connection; returns its last seq (throws what the store threw). */
  commit(b: WriterBatch): number;
  /** The error as the store's (asStoreError): its code says transient (`store_busy`) or not. */
  classify(err: unknown): Error;
  /** `h` may commit now: no older batch is still on its way (on the writer thread). */
  ready(h: HeldBatch): boolean;
  /** Seq of the last frame on disk when the batch's failed commit did commit after all (see landedSeq). */
  landed(b: WriterBatch): number | undefined;
  committed(last: number, h: HeldBatch): void;
  /** A batch (or the whole hold, on giving up) is lost: reported as the recorder reports any loss. */
  failed(err: Error, frames: number): void;
  delay(e: RecordingDelayEvent): void;
  /** An outage is logged when it starts and when it ends, once each. */
  log?: Logger;
  sessionId: string;
  now?: () => number;
}

export const isTransient = (err: Error): boolean => (err as Partial<StoreError>).code === 'store_busy';

/** Size of a batch in memory, roughly: what maxBytes counts. */
export function batchBytes(b: WriterBatch): number {
  let n = b.rest.length;
  const f = b.frames;
  n +=
    'bytes' in f
      ? f.bytes.byteLength + f.len.byteLength + f.t.byteLength + f.dir.byteLength
      : f.line.reduce((s, l) => s + l.length + 9, 0);
  for (const j of b.entries.json) n += j.length;
  for (const t of b.entries.tailText) n += t.length;
  return n;
}

export class RecorderHold {
  private q: HeldBatch[] = [];
  private frames = 0;
  private bytes = 0;
  private since = 0;
  private backoff: number;
  private timer: NodeJS.Timeout | undefined;
  private lastError: Error | undefined;
  /** An outage was announced and its end not yet (a nested retry, from a callback, must not say it twice). */
  private out = false;
  private readonly now: () => number;

  constructor(private readonly d: HoldDeps) {
    this.backoff = d.limits.retryMinMs;
    this.now = d.now ?? Date.now;
  }

  get empty(): boolean {
    return this.q.length === 0;
  }

  get heldFrames(): number {
    return this.frames;
  }

  /** The place of the oldest batch held. */
  get oldest(): number | undefined {
    return this.q[0]?.no;
  }

  /** When the store stopped taking commits (epoch ms), while something is held. */
  get heldSince(): number | undefined {
    return this.empty ? undefined : this.since;
  }

  /** `h` waits behind what is held (`err`: it failed for now; without: it came after a failure). */
  add(h: HeldBatch, err?: Error): void {
    const first = this.empty;
    if (first) {
      this.since = this.now();
      this.backoff = this.d.limits.retryMinMs;
    }
    // In order: a batch the writer thread answers late goes before newer ones held meanwhile.
    let i = this.q.length;
    while (i > 0 && this.q[i - 1]!.no > h.no) i--;
    this.q.splice(i, 0, h);
    this.frames += h.frames;
    this.bytes += batchBytes(h.batch);
    if (err) this.lastError = err;
    if (this.overLimit()) return;
    if (first) {
      this.d.log?.warn('store: recording delayed; frames are held and retried', {
        sessionId: this.d.sessionId,
        error: this.lastError?.message,
      });
      this.announce();
    }
    this.arm();
  }

  /**
   * Commits what is held, oldest first, now: until all is on disk, or the store fails for now
   * again (the rest waits for the next retry). A batch the store refuses for good is dropped and
   * reported, and the next one tried.
   */
  retry(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.empty) return;
    let stored = 0;
    while (this.q.length > 0) {
      const h = this.q[0]!;
      if (!this.d.ready(h)) {
        if (!this.overLimit()) this.arm(); // after the older batch's answer
        return;
      }
      let last: number;
      try {
        // A commit whose answer was lost (a network store) may have landed: then it is not written twice.
        last = this.d.landed(h.batch) ?? this.d.commit(h.batch);
      } catch (thrown) {
        const err = this.d.classify(thrown);
        if (isTransient(err)) {
          this.lastError = err;
          if (this.overLimit()) return;
          this.announce();
          this.backoff = Math.min(this.backoff * 2, this.d.limits.retryMaxMs);
          this.arm();
          return;
        }
        this.shift();
        this.d.failed(err, h.frames);
        continue;
      }
      this.shift();
      stored += h.frames;
      this.d.committed(last, h);
    }
    if (!this.out) return;
    this.out = false;
    this.d.log?.info('store: recording caught up', { sessionId: this.d.sessionId, frames: stored });
    this.d.delay({ type: 'recording.caught_up', frames: stored, outageMs: this.now() - this.since });
  }

  /** Drops everything held, reported as one loss naming its size and `why`. */
  giveUp(why: string): void {
    if (this.empty) return;
    const frames = this.frames;
    const batches = this.q.length;
    this.q = [];
    this.frames = this.bytes = 0;
    this.out = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const cause = this.lastError ? `: ${this.lastError.message}` : '';
    const err = new TalariaError(
      'recording_failed',
      `recording gave up: ${frames} frames (${batches} batches) waiting for the store were dropped — ${why}${cause}`,
      { frames, batches },
      { cause: this.lastError },
    );
    this.d.failed(err, frames);
  }

  /** Gives up when a bound is passed; true when it did. */
  private overLimit(): boolean {
    const l = this.d.limits;
    const held = this.now() - this.since;
    const why =
      this.frames > l.maxFrames
        ? `more than ${l.maxFrames} frames held`
        : this.bytes > l.maxBytes
          ? `more than ${l.maxBytes} bytes held`
          : held > l.maxMs
            ? `the store has been unavailable for ${duration(held)} (limit ${duration(l.maxMs)})`
            : undefined;
    if (why === undefined) return false;
    this.giveUp(why);
    return true;
  }

  private announce(): void {
    this.out = true;
    this.d.delay({
      type: 'recording.delayed',
      frames: this.frames,
      bytes: this.bytes,
      since: this.since,
      error: this.lastError ?? new Error('the store is unavailable'),
    });
  }

  /** The retry timer: it never keeps the process alive by itself. */
  private arm(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.retry(), this.backoff);
    this.timer.unref();
  }

  private shift(): void {
    const h = this.q.shift()!;
    this.frames -= h.frames;
    this.bytes -= batchBytes(h.batch);
  }
}

const duration = (ms: number): string => (ms < 10_000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`);

/**
 * Did `b`'s failed commit land after all? A network store can lose the answer to a COMMIT that
 * succeeded; retrying would store its frames twice. It landed when the log now ends exactly
 * `b`'s frames after `after` (the last seq the recorder committed) and its last frame is `b`'s
 * (time, direction, bytes); then that seq is returned. SQLite never commits a failed batch, so
 * there it answers undefined (two indexed reads). A batch without frames cannot be checked this
 * way: it is retried (entries are upserts; a tail or audit row could be written twice).
 */
export function landedSeq(store: Pick<Store, 'wire'>, b: WriterBatch, after: number): number | undefined {
  const last = lastFrame(b.frames);
  if (!last) return undefined;
  const seq = store.wire.lastSeq(b.key);
  if (seq !== after + last.n) return undefined;
  const [row] = store.wire.rows(b.key, { fromSeq: seq, limit: 1 });
  return row && row.t_ms === last.t && row.dir === last.dir && row.msg === last.line ? seq : undefined;
}

function lastFrame(f: RawWireColumns | PackedFrames): { n: number; t: number; dir: string; line: string } | undefined {
  const n = 'bytes' in f ? f.len.length : f.line.length;
  if (n === 0) return undefined;
  if (!('bytes' in f)) return { n, t: f.t[n - 1]!, dir: f.dir[n - 1]!, line: f.line[n - 1]! };
  // Only the last line is decoded: its bytes are the last len[n-1] of the block.
  const l = f.len[n - 1]!;
  const one: PackedFrames = {
    bytes: f.bytes.subarray(f.bytes.byteLength - l),
    len: f.len.subarray(n - 1),
    t: f.t.subarray(n - 1),
    dir: f.dir.subarray(n - 1),
    ...(f.odd?.[n - 1] !== undefined ? { odd: { 0: f.odd[n - 1]! } } : {}),
  };
  const c = unpackFrames(one);
  return { n, t: c.t[0]!, dir: c.dir[0]!, line: c.line[0]! };
}
