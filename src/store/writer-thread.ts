/**
 * The recorders' writer thread, one per store file and shared by its recorders: a Worker
 * (writer-worker.ts) that commits their batches on its own connection. The main thread hands a
 * batch over (strings and numbers in arrays, see writer-batch.ts) and goes on reading the pipe;
 * `wait` blocks until a batch is on disk (Atomics.wait on a shared control block) for the callers
 * that promise that (a turn's end, flush, close).
 *
 * It never keeps the process alive by itself once started: the worker is unref'd when it has
 * opened the database (or failed to), and its result port is ref'd only while batches are in
 * flight (so a process does not exit with a batch unwritten). Before that it is ref'd: a process
 * that ended while the worker was inside SQLite aborted ("v8::ToLocalChecked Empty MaybeLocal",
 * better-sqlite3 making its error in a worker being torn down), so a short process waits for
 * the start it began (a built worker opens in tens of milliseconds). It stops
 * when its last recorder lets go. Until it is ready, and after it failed, recorders commit on the
 * main connection as they always did.
 */
import { receiveMessageOnPort, MessageChannel, type Worker, type MessagePort } from 'node:worker_threads';
import type { Logger } from '../protocol/types.js';
import type { WriterBatch } from './writer-batch.js';
import { startStoreWorker } from './worker-start.js';
import { isPgUrl } from './pg/url.js';
import {
  CTL_ACKED,
  CTL_CLOSED,
  CTL_READY,
  CTL_SLOTS,
  type WriterInit,
  type WriterRequest,
  type WriterResult,
} from './writer-protocol.js';

/** How long `wait` waits for one batch before it gives the thread up (ms; SQLite's own lock wait is 5 s). */
export const WRITER_WAIT_MS = 30_000;

/** How long letting go of the thread waits for its connection to close (ms). */
export const WRITER_CLOSE_WAIT_MS = 10_000;

export type BatchDone = (err: Error | undefined, seq: number) => void;

export interface WriterThread {
  /** The worker has its connection and has not failed: batches may go to it. */
  readonly ready: boolean;
  /** Batches sent and not answered yet. */
  readonly inFlight: number;
  /** Sends `batch`; `done` runs once with its result, in order, from an event or from `wait`. Returns its id. */
  post(batch: WriterBatch, done: BatchDone): number;
  /** Blocks until batch `id` (and all before it) is answered and its `done` has run. */
  wait(id: number): void;
  /** One recorder lets go; the last one stops the thread. */
  release(): void;
}

interface Shared {
  thread: WriterThread;
  refs: number;
}

const byPath = new Map<string, Shared>();

export interface WriterThreadOptions {
  path: string;
  busyTimeoutMs?: number;
  logger?: Logger;
  /** @internal Tests: the worker entry to run instead of writer-worker. */
  entry?: URL;
}

/** The writer thread of the store file `path`, started on first use. Pair with `release()`. */
export function acquireWriterThread(o: WriterThreadOptions): WriterThread {
  // A PostgreSQL store (its path is the server's address) commits on its own connection.
  if (isPgUrl(o.path)) return NO_THREAD;
  let s = byPath.get(o.path);
  if (!s) {
    const fresh: Shared = { thread: undefined as unknown as WriterThread, refs: 0 };
    // A stopped thread stops being the path's thread (a later recorder starts a new one).
    fresh.thread = startWriterThread(o, () => byPath.get(o.path) === fresh && byPath.delete(o.path));
    s = fresh;
    byPath.set(o.path, s);
  }
  s.refs++;
  const shared = s;
  let released = false;
  return {
    get ready() {
      return shared.thread.ready;
    },
    get inFlight() {
      return shared.thread.inFlight;
    },
    post: (b, done) => shared.thread.post(b, done),
    wait: (id) => shared.thread.wait(id),
    release() {
      if (released) return;
      released = true;
      if (--shared.refs === 0) shared.thread.release();
    },
  };
}

/** Never ready: its recorders commit on the store's connection. */
const NO_THREAD: WriterThread = {
  ready: false,
  inFlight: 0,
  post: (_b, done) => {
    done(new Error('no writer thread for this store'), 0);
    return 0;
  },
  wait: () => undefined,
  release: () => undefined,
};

function spawn(init: WriterInit, entry: URL | undefined, transfer: MessagePort[]): Worker {
  return startStoreWorker(
    'writer-worker',
    { workerData: init, transferList: transfer, stdout: false, stderr: false },
    entry,
  );
}

function startWriterThread(o: WriterThreadOptions, gone: () => unknown): WriterThread {
  const log = o.logger;
  const ctlBuf = new SharedArrayBuffer(CTL_SLOTS * 4);
  const ctl = new Int32Array(ctlBuf);
  const { port1: results, port2 } = new MessageChannel();
  const pending = new Map<number, BatchDone>();
  let nextId = 0;
  /** Bumped on each failure answered: batches posted after it are tried again (writer-protocol.ts). */
  let epoch = 0;
  let dead: Error | undefined;
  let closed = false;

  const worker = spawn({ path: o.path, busyTimeoutMs: o.busyTimeoutMs, ctl: ctlBuf, results: port2 }, o.entry, [port2]);
  results.on('message', handle);
  results.unref();

  function holdOpen(): void {
    // Ref'd while a batch is in flight: the process waits for it rather than exit with it unwritten.
    if (pending.size > 0) results.ref();
    else results.unref();
  }

  function handle(r: WriterResult): void {
    if (r.id === 0) {
      worker.unref(); // started: from here it keeps no process alive
      if (r.error)
        stop(errorFrom(r.error), 'store: the writer thread could not open the database; recording on the main thread');
      return;
    }
    const done = pending.get(r.id);
    if (!done) return;
    pending.delete(r.id);
    holdOpen();
    if (r.error) epoch++;
    done(r.error ? errorFrom(r.error) : undefined, r.seq ?? 0);
  }

  /** The thread is unusable: every batch in flight is answered with `err` (its recorder reports it). */
  function stop(err: Error, why: string): void {
    if (dead) return;
    dead = err;
    if (!closed) log?.warn(why, { path: o.path, error: err.message });
    gone();
    const left = [...pending.values()];
    pending.clear();
    holdOpen();
    for (const done of left) done(err, 0);
    if (!closed) {
      closed = true;
      worker.postMessage({ type: 'close' } satisfies WriterRequest);
    }
  }

  worker.on('error', (err) => stop(err, 'store: the writer thread failed'));
  worker.on('exit', (code) => stop(new Error(`the writer thread exited (${code})`), 'store: the writer thread exited'));

  return {
    get ready() {
      return !dead && !closed && Atomics.load(ctl, CTL_READY) === 1;
    },
    get inFlight() {
      return pending.size;
    },
    post(batch, done) {
      const id = ++nextId;
      if (dead || closed) {
        done(dead ?? new Error('the writer thread is closed'), 0);
        return id;
      }
      pending.set(id, done);
      holdOpen();
      try {
        worker.postMessage({ type: 'batch', id, epoch, batch } satisfies WriterRequest);
      } catch (err) {
        // Not cloneable: nothing went out.
        pending.delete(id);
        holdOpen();
        done(err instanceof Error ? err : new Error(String(err)), 0);
      }
      return id;
    },
    wait(id) {
      const deadline = Date.now() + WRITER_WAIT_MS;
      // Ids are answered in order: while the oldest unanswered one is at most `id`, keep waiting.
      while (pending.size > 0 && (pending.keys().next().value as number) <= id) {
        const m = receiveMessageOnPort(results);
        if (m) {
          handle(m.message as WriterResult);
          continue;
        }
        const acked = Atomics.load(ctl, CTL_ACKED);
        const left = deadline - Date.now();
        if (left <= 0) {
          stop(
            new Error(`the writer thread did not answer within ${WRITER_WAIT_MS} ms`),
            'store: the writer thread stopped answering',
          );
          return;
        }
        if (acked >= id) continue; // its result is on the port
        Atomics.wait(ctl, CTL_ACKED, acked, Math.min(left, 100));
      }
    },
    release() {
      if (closed) return;
      closed = true;
      gone();
      worker.postMessage({ type: 'close' } satisfies WriterRequest);
      // Closed when this returns, as the main connection's close is: the file may be moved or
      // removed next (a checkpoint by the thread's last connection would otherwise still run).
      if (!dead) Atomics.wait(ctl, CTL_CLOSED, 0, WRITER_CLOSE_WAIT_MS);
    },
  };
}

function errorFrom(e: WriterResult['error']): Error {
  const err = new Error(e?.message ?? 'the writer thread failed');
  err.name = e?.name ?? 'Error';
  if (e?.code !== undefined) Object.assign(err, { code: e.code });
  return err;
}
