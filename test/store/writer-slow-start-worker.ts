/**
 * A stand-in writer thread for writer-thread.test.ts that is slow to start: it waits 300 ms, notes
 * `<db path>.started` on disk, then runs the real writer worker (which opens the database).
 */
import { writeFileSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import type { WriterInit } from '../../src/store/writer-protocol.js';

Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
writeFileSync((workerData as WriterInit).path + '.started', '');
await import('../../src/store/writer-worker.js');
