/**
 * The writer thread (a worker_threads Worker started by writer-thread.ts): its own better-sqlite3
 * connection to the store's file commits the recorders' batches, so the SQLite work of a streamed
 * turn leaves the thread that reads the agent's pipe. WAL lets the main connection read every
 * committed row. Results go back in order on `results`; `ctl` lets the main thread wait for one
 * synchronously (a turn's end must be on disk before the turn is reported ended).
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { openDatabase, type Db } from './db.js';
import { asStoreError, StoreError } from './errors.js';
import { batchCommitter, batchRepos, type WriterBatch } from './writer-batch.js';
import {
  CTL_ACKED,
  CTL_CLOSED,
  CTL_READY,
  type WriterInit,
  type WriterRequest,
  type WriterResult,
} from './writer-protocol.js';

const init = workerData as WriterInit;
const ctl = new Int32Array(init.ctl);
const results: MessagePort = init.results;

function errorOf(err: unknown): WriterResult['error'] {
  const e = err instanceof Error ? err : new Error(String(err));
  const code = (e as { code?: unknown }).code;
  return { name: e.name, message: e.message, ...(typeof code === 'string' ? { code } : {}) };
}

function ack(id: number): void {
  Atomics.store(ctl, CTL_ACKED, id);
  Atomics.notify(ctl, CTL_ACKED);
}

/** A batch failed for now: batches of its epoch or older (queued behind it) get its error untried. */
let refusing: { epoch: number; error: WriterResult['error'] } | undefined;

let db: Db | undefined;
let commit: ((b: WriterBatch) => number) | undefined;
try {
  db = openDatabase({ path: init.path, busyTimeoutMs: init.busyTimeoutMs }).db;
  commit = batchCommitter(batchRepos(db));
  Atomics.store(ctl, CTL_READY, 1);
  // Said on the port as well: the owner keeps the process alive until it hears it (writer-thread.ts).
  results.postMessage({ id: 0 } satisfies WriterResult);
} catch (err) {
  // The main thread goes on committing on its own connection; it logs why.
  results.postMessage({ id: 0, error: errorOf(err) } satisfies WriterResult);
  Atomics.store(ctl, CTL_READY, -1);
}
Atomics.notify(ctl, CTL_READY);

/**
 * Closes the connection and says so (the owner's release() waits for it). Also on any exit of the
 * thread, a crash included: the owner may let go before it has heard of the exit, and would wait
 * its whole bound for a close that never comes.
 */
function closeDb(): void {
  try {
    db?.close();
  } finally {
    db = undefined;
    Atomics.store(ctl, CTL_CLOSED, 1);
    Atomics.notify(ctl, CTL_CLOSED);
  }
}
process.on('exit', closeDb);

parentPort!.on('message', (m: WriterRequest) => {
  if (m.type === 'close') {
    closeDb();
    results.close();
    parentPort!.close();
    return;
  }
  let r: WriterResult;
  if (refusing && m.epoch <= refusing.epoch) r = { id: m.id, error: refusing.error };
  else
    try {
      if (!commit) throw new Error('the writer thread has no database');
      r = { id: m.id, seq: commit(m.batch) };
    } catch (err) {
      r = { id: m.id, error: errorOf(err) };
      const e = asStoreError(err, init.path, 'write to');
      if (e instanceof StoreError && e.code === 'store_busy') refusing = { epoch: m.epoch, error: r.error };
    }
  // Posted before the ack: a main thread woken by the ack finds the result on its port.
  results.postMessage(r);
  ack(m.id);
});
