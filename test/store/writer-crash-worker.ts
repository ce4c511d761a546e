/**
 * A stand-in writer thread for writer-thread.test.ts: the real worker, which crashes (an uncaught
 * error) once it has opened its database and written `<path>.crashing` beside the file.
 */
import { writeFileSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import type { WriterInit } from '../../src/store/writer-protocol.js';

await import('../../src/store/writer-worker.js');
setTimeout(() => {
  writeFileSync((workerData as WriterInit).path + '.crashing', '');
  throw new Error('the stand-in writer thread crashed');
}, 0);
