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
import { BusyHold, isStoreBusy } from '../store/busy-hold.js';
import type { Logger } from '../protocol/types.js';
import type { Store } from '../store/index.js';
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

export const isTransient = (err: Error): boolean => isStoreBusy(err);

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

/** The store's one hold (store/busy-hold.ts) over the recorder's batches: frames are what it counts. */
export class RecorderHold {
  private readonly hold: BusyHold<HeldBatch, number>;

  constructor(d: HoldDeps) {
    const { maxFrames, ...rest } = d.limits;
    this.hold = new BusyHold<HeldBatch, number>({
      limits: { maxCount: maxFrames, ...rest },
      commit(h) {
        if (!d.ready(h.item)) return undefined;
        // A commit whose answer was lost (a network store) may have landed: then it is not written twice.
        return d.landed(h.item.batch) ?? d.commit(h.item.batch);
      },
      committed: (h, last) => d.committed(last, h.item),
      classify: d.classify,
      dropped: d.failed,
      delayed: (e) =>
        d.delay({ type: 'recording.delayed', frames: e.count, bytes: e.bytes, since: e.since, error: e.error }),
      caughtUp: (c) => d.delay({ type: 'recording.caught_up', frames: c.count, outageMs: c.outageMs }),
      what: 'recording',
      unit: 'frames',
      ...(d.log ? { log: d.log } : {}),
      logFields: { sessionId: d.sessionId },
      ...(d.now ? { now: d.now } : {}),
    });
  }

  get empty(): boolean {
    return this.hold.empty;
  }

  get heldFrames(): number {
    return this.hold.held;
  }

  get oldest(): number | undefined {
    return this.hold.oldest;
  }

  get heldSince(): number | undefined {
    return this.hold.heldSince;
  }

  add(h: HeldBatch, err?: Error): void {
    this.hold.add({ no: h.no, item: h, count: h.frames, bytes: batchBytes(h.batch) }, err);
  }

  retry(): void {
    this.hold.retry();
  }

  giveUp(why: string): void {
    this.hold.giveUp(why);
  }
}

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
