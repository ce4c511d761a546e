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
 * checkpoints it once it has been idle for `idleCheckpointMs`, on a timer that does not keep the
 * process alive (the store's close checkpoints too). Durability does not depend on it: a commit
 * in the WAL is already on disk as far as a crash of the process is concerned.
 *
 * Sequence numbers are allocated inside the commit, under the write lock (BEGIN IMMEDIATE), from
 * what is on disk: another process writing the same session's log (it should hold the lease; see
 * leases) can never make a batch collide and vanish. A batch that cannot be written is never
 * silent: it is counted, logged and reported through `onError` (the harness surfaces it).
 */
import { redactFrame } from '../os/redact.js';
import type { Frame, Logger } from '../protocol/types.js';
import type { PermissionDecisionEvent } from '../permission/types.js';
import type { SessionEvent } from '../session/events.js';
import { asStoreError, StoreError, storeErrorFrom, type Store } from '../store/index.js';
import type { WriterBatch } from '../store/writer-batch.js';
import { acquireWriterThread, type WriterThread } from '../store/writer-thread.js';
import { PendingWork } from './recorder-pending.js';

export interface RecorderOptions {
  /** The Talaria session id (a row in `sessions`) everything is recorded under. */
  sessionKey: string;
  /** When set, events of other agent sessions are ignored (for a client-wide subscription). */
  agentSessionId?: string;
  /**
   * Commit at once when this many frames are pending (default 1024): a bound on memory and on
   * what a SIGKILL mid-tick can lose. A flood's tick carries ~850 frames; at 256 a tick took
   * three or four commits, each paying the commit's fixed cost (about 40 WAL pages rewritten).
   */
  maxBatch?: number;
  /**
   * A stream's commits are at least this far apart (ms, default 10; 0: one per tick): what a
   * SIGKILL mid-turn can lose, against the commit's fixed cost paid per frame by a paced stream.
   */
  commitGapMs?: number;
  /** Start the stored thread afresh (a new live Thread restarts entry indexes at 0). Default false. */
  resetThread?: boolean;
  /**
   * The line stored for a frame (default storedLineOf: the bytes as received, secrets masked).
   * The one place a frame's stored form is made.
   */
  storedLine?: (frame: Frame) => string;
  logger?: Logger;
  /**
   * Checkpoint the WAL into the database once nothing was committed for this long (ms, default
   * 500): checkpoints (a copy and two fsyncs) then fall between turns, not inside a stream.
   */
  idleCheckpointMs?: number;
  /**
   * Commit on the store's writer thread (store/writer-thread.ts), off the event loop that reads
   * the agent (default off, see writerThreadDefault; an in-memory store always commits inline). Until
   * the thread is ready, and if it fails, batches commit on the main connection as before.
   */
  thread?: boolean;
  /** After each commit (the SIGKILL test and progress displays use it). */
  onFlush?: (info: FlushInfo) => void;
  /** A batch could not be written (it is dropped, counted and logged as well). */
  onError?: (err: Error) => void;
}

export interface FlushInfo {
  /** Frames committed by this flush. */
  frames: number;
  /** Seq of the last committed frame. */
  lastSeq: number;
  /** Entry rows written by this flush (after coalescing). */
  entries: number;
}

export interface Recorder {
  /** The frame tap: pass to session.subscribeFrames (or ClientOptions.onFrame for a whole connection). */
  onFrame(frame: Frame): void;
  /** The event tap: pass to session.subscribe / client.subscribe. */
  onEvent(ev: SessionEvent): void;
  /** Richer audit rows (subject, option kind): pass as ClientOptions.onPermissionDecision. Once used, it replaces the event-based audit. */
  onPermissionDecision(ev: PermissionDecisionEvent): void;
  /** Commits everything pending now. */
  flush(): void;
  /** Flushes and stops recording. */
  close(): void;
  /** Seq of the last committed frame. */
  readonly lastSeq: number;
  /** Frames queued but not committed yet. */
  readonly pendingFrames: number;
  /** Frames that never reached the disk (failed batches, or sent after the store closed). */
  readonly lostFrames: number;
  /** The first failure, kept (later ones are counted in lostFrames and logged). */
  readonly error: Error | undefined;
  /** Batches go to the writer thread now (it is ready and has not failed). */
  readonly threaded: boolean;
}

/**
 * Default stored form of a frame: exactly the line that crossed the pipe, unless it carries a
 * secret (mcpServers env/headers, terminal/create env, authenticate…): then masked (os/redact.ts).
 */
export const storedLineOf = (frame: Frame): string => redactFrame(frame, frame.raw);

/** See RecorderOptions.maxBatch. */
export const DEFAULT_MAX_BATCH = 1024;
/** See RecorderOptions.commitGapMs. */
export const DEFAULT_COMMIT_GAP_MS = 10;
/**
 * See RecorderOptions.thread: off unless `TALARIA_WRITER_THREAD=1` (read as each recorder starts).
 * Off because it did not pay where it was measured: on a loaded 2-core machine, talaria + store /
 * core was 0.48× with and without it (8 paired rounds each); the thread's CPU comes out of the
 * same cores, and handing batches over costs the event loop about a third of committing them.
 */
export const writerThreadDefault = (env: NodeJS.ProcessEnv = process.env): boolean => env.TALARIA_WRITER_THREAD === '1';
/** Batches handed to the writer thread and not answered before the recorder waits for the oldest (bounds memory). */
export const MAX_IN_FLIGHT = 8;

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
  const idleMs = Math.max(0, opts.idleCheckpointMs ?? 500);
  let idle: NodeJS.Timeout | undefined;

  const writer: WriterThread | undefined =
    (opts.thread ?? writerThreadDefault()) && store.path !== ':memory:'
      ? acquireWriterThread({ path: store.path, ...(log ? { logger: log } : {}) })
      : undefined;
  /** Frames handed to the writer thread and not answered yet. */
  let inFlightFrames = 0;
  /** Id of the last batch handed to the writer thread. */
  let lastPosted = 0;

  function committed(last: number, n: number, nEntries: number): void {
    committedSeq = last;
    checkpointWhenIdle();
    notify(opts.onFlush, { frames: n, lastSeq: last, entries: nEntries });
  }

  function failed(thrown: Error, frameCount: number): void {
    // A fault of the file (corrupt, read-only, full…) named as the store's problem, with its path and fix.
    const err = asStoreError(thrown, store.path, 'write to') as Error;
    lostFrames += frameCount;
    // Logged once: a sick disk fails every batch after the first, and lostFrames counts them.
    if (firstError === undefined)
      log?.error('store: recorder batch lost; later losses are counted, not logged', {
        sessionId: key,
        frames: frameCount,
        error: err.message,
      });
    firstError ??= err;
    notify(opts.onError, err);
  }

  /** Commits what is pending: on the writer thread when it is ready (`wait`: until it is on disk), else here. */
  function flush(wait = true): void {
    if (scheduled) {
      if (scheduled.kind === 'tick') clearImmediate(scheduled.h);
      else clearTimeout(scheduled.h);
      scheduled = undefined;
    }
    if (pending.empty) {
      if (wait && writer && lastPosted > 0) writer.wait(lastPosted);
      return;
    }
    const n = pending.frameCount;
    const nEntries = pending.entryCount;
    const threaded = writer?.ready ?? false;
    let batch: WriterBatch;
    try {
      if (store.closed) throw new StoreError('closed', 'the store is closed');
      batch = pending.take();
    } catch (err) {
      pending.clear();
      failed(err instanceof Error ? err : new Error(String(err)), n);
      return;
    }
    lastCommitAt = performance.now();
    if (threaded && writer) {
      inFlightFrames += n;
      lastPosted = writer.post(batch, (err, last) => {
        inFlightFrames -= n;
        if (err) failed(err, n);
        else committed(last, n, nEntries);
      });
      // A writer that falls behind makes the reader wait rather than let batches pile up.
      if (wait) writer.wait(lastPosted);
      else if (writer.inFlight > MAX_IN_FLIGHT) writer.wait(lastPosted - MAX_IN_FLIGHT);
      return;
    }
    let last: number;
    try {
      last = store.commitBatch(batch);
    } catch (err) {
      // Dropped, not retried: holding batches would grow memory without bound while the disk is sick.
      failed(err instanceof Error ? err : new Error(String(err)), n);
      return;
    }
    committed(last, n, nEntries);
  }

  /** The tick's (or the gap timer's) commit: it need not be on disk before the event loop goes on. */
  const flushLater = (): void => flush(false);

  /** Callbacks run on the transport's stack or in a setImmediate: a throw must not escape there. */
  function notify<T>(fn: ((v: T) => void) | undefined, v: T): void {
    if (!fn) return;
    try {
      fn(v);
    } catch (err) {
      log?.error('store: recorder callback threw', { sessionId: key, error: String(err) });
    }
  }

  function checkpointWhenIdle(): void {
    if (idle) {
      idle.refresh();
      return;
    }
    idle = setTimeout(checkpoint, idleMs);
    idle.unref();
  }

  function checkpoint(): void {
    idle = undefined;
    if (store.closed) return;
    try {
      store.checkpoint();
    } catch (err) {
      // Nothing is lost: the frames stay in the WAL, and the next checkpoint copies them.
      log?.warn('store: checkpoint failed', { sessionId: key, error: String(err) });
    }
  }

  function schedule(): void {
    if (scheduled !== undefined) return;
    const wait = lastCommitAt + gapMs - performance.now();
    scheduled =
      wait > 0 ? { kind: 'timer', h: setTimeout(flushLater, wait) } : { kind: 'tick', h: setImmediate(flushLater) };
  }

  function mine(agentSessionId: string | undefined): boolean {
    return opts.agentSessionId === undefined || agentSessionId === opts.agentSessionId;
  }

  /** Work arriving after the store closed under the recorder: counted and reported once. */
  function afterStoreClosed(frameCount: number): void {
    if (lostFrames === 0 && firstError === undefined)
      failed(new StoreError('closed', 'the store was closed while the session was still recording'), frameCount);
    else lostFrames += frameCount;
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
      unregister();
      writer?.release();
    },

    get lastSeq() {
      return committedSeq;
    },
    get pendingFrames() {
      return pending.frameCount + inFlightFrames;
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
    storeGone = true;
  });
  return rec;
}
