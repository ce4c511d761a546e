/** A stand-in writer thread for writer-thread.test.ts: says it is ready, then dies on the first batch. */
import { workerData } from 'node:worker_threads';
import { parentPort } from 'node:worker_threads';
import { CTL_READY, type WriterInit } from '../../src/store/writer-protocol.js';

const ctl = new Int32Array((workerData as WriterInit).ctl);
Atomics.store(ctl, CTL_READY, 1);
parentPort!.on('message', () => process.exit(3));
