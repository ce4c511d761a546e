/** What the recorder's writer thread and the main thread say to each other (writer-thread.ts). */
import type { MessagePort } from 'node:worker_threads';
import type { WriterBatch } from './writer-batch.js';

/** Int32 slots of the shared control block. */
export const CTL_READY = 0; // 0 starting, 1 ready, -1 could not open the database
export const CTL_ACKED = 1; // id of the last batch answered
export const CTL_CLOSED = 2; // 1 once the thread's connection is closed
export const CTL_SLOTS = 3;

export interface WriterInit {
  path: string;
  busyTimeoutMs?: number;
  ctl: SharedArrayBuffer;
  results: MessagePort;
}

/**
 * `epoch`: the owner's count of failures it has seen answered. After a batch fails for now
 * (`store_busy`), the worker refuses every batch of that epoch or older untried, with the same
 * error: one queued behind it must not commit ahead of it (seqs are taken inside each commit).
 */
export type WriterRequest = { type: 'batch'; id: number; epoch: number; batch: WriterBatch } | { type: 'close' };

/** Id 0 is the thread's start: opened (no error), or not (error: it is not used). */
export interface WriterResult {
  id: number;
  seq?: number;
  error?: { name: string; message: string; code?: string };
}
