/** A stand-in writer thread for writer-thread.test.ts: the real worker, 300 ms slow to act on `close`. */
import { parentPort } from 'node:worker_threads';

// Registered before the real worker's listener, so it runs first on every message.
parentPort!.on('message', (m: { type: string }) => {
  if (m.type === 'close') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
});
await import('../../src/store/writer-worker.js');
