/**
 * Writes a live session into the store as it happens: every frame (the bytes as they crossed the
 * pipe), entry, turn and permission decision. It sits above the store because it knows what
 * sessions and permissions say; the store only keeps rows.
 *
 * Batching: work is queued and committed in ONE transaction per event-loop tick (setImmediate),
 * but no sooner than `commitGapMs` after the last commit (a timer then), immediately when
 * `maxBatch` frames are pending, and synchronously on every `turn.ended`. With WAL each commit
 * survives process death, so a SIGKILL loses at most the frames of the last `commitGapMs` (or the
 * current tick). Why the gap: a paced stream (one update per tick, 2,000/s) otherwise paid a whole
 * commit per frame, a third of `talaria acp`'s CPU. Entry updates are coalesced per batch (a
 * streamed reply updates one entry per chunk; only its last state in the batch is written), and
 * a message already on disk grows by its appended text alone (recorder-pending.ts, tails). A
 * batch's frames are one block row (store/wire-blocks.ts).
 *
 * The writer thread (store/writer-thread.ts; `thread: true` or TALARIA_WRITER_THREAD=1): a batch is handed to a worker with its
 * own connection to the same file instead of being committed on the event loop that reads the
 * agent; the tick's commit does not wait for it, a turn's end, `flush` and `close` do (the thread
 * answers through shared memory), so "ended" still means "on disk". Until the thread is ready,
 * after it failed, and for an in-memory store, batches commit here as before. Its errors take the
 * same path as this thread's.
 *
 * Checkpoints: the store lets the WAL grow (db.ts, WAL_AUTOCHECKPOINT_PAGES) and the recorder
 * checkpoints it once idle for `idleCheckpointMs` (recorder-support.ts); durability does not
 * depend on it: a commit in the WAL is already on disk as far as a crash is concerned.
 *
 * Sequence numbers are allocated inside the commit, under the write lock (BEGIN IMMEDIATE), from
 * what is on disk: another process writing the same session's log (it should hold the lease; see
 * leases) can never make a batch collide and vanish. A batch that cannot be written is never
 * silent: it is counted, logged and reported through `onError` (the harness surfaces it).
 *
 * Outages: a batch the store cannot take for now (`store_busy`) is held with everything after it
 * and retried with backoff (recorder-hold.ts), on either path; `onDelay` says so while it lasts.
 * A turn's end, `flush` and `close` during an outage try once more, waiting no longer than the
 * store's own timeout, and return with the rest still held (close: retried on after it).
 */
import { asStoreError, StoreError, storeErrorFrom, type Store } from '../store/index.js';
import type { WriterBatch } from '../store/writer-batch.js';
import { acquireWriterThread, type WriterThread } from '../store/writer-thread.js';
import { DEFAULT_HOLD, isTransient, landedSeq, RecorderHold, type HeldBatch } from './recorder-hold.js';
import {
  DEFAULT_COMMIT_GAP_MS,
  DEFAULT_MAX_BATCH,
  MAX_IN_FLIGHT,
  storedLineOf,
  writerThreadDefault,
  type Recorder,
  type RecorderOptions,
} from './recorder-options.js';
import { PendingWork } from './recorder-pending.js';
import { idleCheckpoints, notifier } from './recorder-support.js';

export * from './recorder-options.js';
export { DEFAULT_HOLD, type HoldLimits, type RecordingDelayEvent } from './recorder-hold.js';

export function createRecorder(store: Store, opts: RecorderOptions): Recorder {
  const key = opts.sessionKey;
  if (store.readOnly)
    throw storeErrorFrom(
      Object.assign(new Error(store.readOnlyReason ?? 'opened read-only'), { code: 'SQLITE_READONLY' }),
      store.path,
    );
  if (!store.sessions.get(key)) throw new StoreError('not_found', `no stored session ${key}`, { sessionId: key });
  const maxBatch = Math.max(1, opts.maxBatch ?? DEFAULT_MAX_BATCH);
  const log = opts.logger;
  const storedLine = opts.storedLine ?? storedLineOf;

  if (opts.resetThread) store.entries.clear(key);
  let committedSeq = store.wire.lastSeq(key);

  const pending = new PendingWork(
    key,
    store.entries.getMeta(key) ?? { plan: null, availableCommands: [], context: {} },
  );
  let scheduled: { kind: 'tick'; h: NodeJS.Immediate } | { kind: 'timer'; h: NodeJS.Timeout } | undefined;
  const gapMs = Math.max(0, opts.commitGapMs ?? DEFAULT_COMMIT_GAP_MS);
  let lastCommitAt = -Infinity;
  let closed = false;
  /** The store closed under us: whatever arrives now is lost, and said so. */
  let storeGone = false;
  let lostFrames = 0;
  let firstError: Error | undefined;
  const checkpointWhenIdle = idleCheckpoints(store, Math.max(0, opts.idleCheckpointMs ?? 500), log, key);
  const notify = notifier(log, key);

  const writer: WriterThread | undefined =
    (opts.thread ?? writerThreadDefault()) && store.path !== ':memory:'
      ? acquireWriterThread({ path: store.path, ...(log ? { logger: log } : {}) })
      : undefined;
  /** Batches handed to the writer thread and not answered yet, oldest first: place, thread id, frames. */
  const inFlight: { no: number; id: number; frames: number }[] = [];
  /** The place of the next batch (held batches commit in this order). */
  let nextNo = 0;

  const asStore = (err: unknown): Error => asStoreError(err, store.path, 'write to') as Error;
  const hold = new RecorderHold({
    limits: { ...DEFAULT_HOLD, ...opts.hold },
    commit: (b) => store.commitBatch(b),
    classify: asStore,
    ready: (h) => inFlight.length === 0 || h.no < inFlight[0]!.no,
    landed: (b) => landedSeq(store, b, committedSeq),
    committed: (last, h) => committed(last, h.frames, h.entries),
    failed: (err, n) => failed(err, n),
    delay(e) {
      notify(opts.onDelay, e);
      if (e.type === 'recording.caught_up') letGoWhenDone();
    },
    ...(log ? { log } : {}),
    sessionId: key,
  });

  function committed(last: number, n: number, nEntries: number): void {
    committedSeq = last;
    checkpointWhenIdle();
    notify(opts.onFlush, { frames: n, lastSeq: last, entries: nEntries });
  }

  function failed(thrown: Error, frameCount: number): void {
    // A fault of the file (corrupt, read-only, full…) named as the store's problem, with its path and fix.
    const err = asStore(thrown);
    lostFrames += frameCount;
    // Entries whose full row was lost are written in full again on their next change, not as tails.
    pending.forgetWritten();
    // Logged once: a sick disk fails every batch after the first, and lostFrames counts them.
    if (firstError === undefined)
      log?.error('store: recorder batch lost; later losses are counted, not logged', {
        sessionId: key,
        frames: frameCount,
        error: err.message,
      });
    firstError ??= err;
    notify(opts.onError, err);
    letGoWhenDone();
  }

  /** A commit's outcome: a failure for now is held and retried, any other dropped and reported. */
  function settle(h: HeldBatch, err: Error | undefined, last: number): void {
    if (!err) {
      // Only the writer thread can get here with an earlier batch held: its frames are now after these.
      if ((hold.oldest ?? Infinity) < h.no)
        log?.warn('store: a batch committed ahead of an earlier one held for a retry', { sessionId: key });
      committed(last, h.frames, h.entries);
      return;
    }
    const e = asStore(err);
    if (isTransient(e) && !store.closed) hold.add(h, e);
    else failed(e, h.frames);
  }

  /** Commits what is pending: on the writer thread when it is ready (`wait`: until it is on disk), else here. */
  function flush(wait = true): void {
    if (scheduled) {
      if (scheduled.kind === 'tick') clearImmediate(scheduled.h);
      else clearTimeout(scheduled.h);
      scheduled = undefined;
    }
    const holding = !hold.empty;
    if (!pending.empty) commitPending(wait);
    if (!wait) return;
    // Every batch on the thread, until one fails for now: the later ones are answered in their time.
    for (const f of [...inFlight]) {
      if (!hold.empty) break;
      writer?.wait(f.id);
    }
    // One more try for what waited already (bounded by the store's own timeout); the rest stays held.
    if (holding) hold.retry();
  }

  function commitPending(wait: boolean): void {
    const n = pending.frameCount;
    const entries = pending.entryCount;
    let batch: WriterBatch;
    try {
      if (store.closed) throw new StoreError('closed', 'the store is closed');
      batch = pending.take();
    } catch (err) {
      pending.clear();
      return failed(err instanceof Error ? err : new Error(String(err)), n);
    }
    const h: HeldBatch = { no: nextNo++, batch, frames: n, entries };
    lastCommitAt = performance.now();
    if (!hold.empty) {
      // Behind what waits for the store: order is kept, and the retry timer commits it.
      hold.add(h);
      return;
    }
    if (writer?.ready) {
      const f = { no: h.no, id: 0, frames: n };
      inFlight.push(f);
      f.id = writer.post(h.batch, (err, last) => {
        inFlight.splice(inFlight.indexOf(f), 1); // may run inside post (a thread that died)
        settle(h, err, last);
      });
      // A writer that falls behind makes the reader wait rather than let batches pile up.
      if (!wait && writer.inFlight > MAX_IN_FLIGHT) writer.wait(f.id - MAX_IN_FLIGHT);
      return;
    }
    let last: number;
    try {
      last = store.commitBatch(h.batch);
    } catch (err) {
      return settle(h, err instanceof Error ? err : new Error(String(err)), 0);
    }
    settle(h, undefined, last);
  }

  /** The tick's (or the gap timer's) commit: it need not be on disk before the event loop goes on. */
  const flushLater = (): void => flush(false);

  function schedule(): void {
    if (scheduled !== undefined) return;
    const wait = lastCommitAt + gapMs - performance.now();
    scheduled =
      wait > 0 ? { kind: 'timer', h: setTimeout(flushLater, wait) } : { kind: 'tick', h: setImmediate(flushLater) };
  }

  const mine = (agentSessionId?: string): boolean =>
    opts.agentSessionId === undefined || agentSessionId === opts.agentSessionId;

  /** Work arriving after the store closed under the recorder: counted and reported once. */
  function afterStoreClosed(frameCount: number): void {
    if (lostFrames === 0 && firstError === undefined)
      failed(new StoreError('closed', 'the store was closed while the session was still recording'), frameCount);
    else lostFrames += frameCount;
  }

  /** A closed recorder stays known to the store while it holds frames (the store's close gives them up). */
  function letGoWhenDone(): void {
    if (closed && hold.empty) unregister();
  }

  const rec: Recorder = {
    onFrame(frame) {
      if (closed) {
        if (storeGone) afterStoreClosed(1);
        return;
      }
      pending.addFrame(frame.t_ms, frame.dir, storedLine(frame));
      if (pending.frameCount >= maxBatch) flush(false);
      else schedule();
    },

    onEvent(ev) {
      if (!mine(ev.sessionId)) return;
      if (closed) {
        // A turn that ends after the store closed is a turn the store will not have.
        if (storeGone && ev.type === 'turn.ended') afterStoreClosed(0);
        return;
      }
      const effect = pending.apply(ev);
      if (effect === 'flush') flush();
      else if (effect === 'schedule') schedule();
    },

    onPermissionDecision(ev) {
      if (closed || !mine(ev.sessionId)) return;
      pending.decision(ev);
      schedule();
    },

    flush: () => flush(),

    close() {
      if (closed) return;
      flush();
      closed = true; // a pending idle checkpoint still runs: the WAL of this session's turns gets copied
      letGoWhenDone();
      writer?.release(); // what is still held is retried on the main connection
    },

    get lastSeq() {
      return committedSeq;
    },
    get pendingFrames() {
      return pending.frameCount + inFlight.reduce((n, f) => n + f.frames, 0) + hold.heldFrames;
    },
    get heldFrames() {
      return hold.heldFrames;
    },
    get delayedSince() {
      return hold.heldSince;
    },
    get lostFrames() {
      return lostFrames;
    },
    get error() {
      return firstError;
    },
    get threaded() {
      return writer?.ready ?? false;
    },
  };
  const unregister = store.beforeClose(() => {
    rec.close();
    hold.giveUp('the store was closed');
    storeGone = true;
  });
  return rec;
}
