/**
 * Child for "a process waits for the thread it began to start": starts a writer thread (the slow
 * stand-in), lets go of it at once and ends its script. Usage: writer-start-child.ts <db path>
 */
import { acquireWriterThread } from '../../src/store/writer-thread.js';

const w = acquireWriterThread({
  path: process.argv[2]!,
  entry: new URL('./writer-slow-start-worker.ts', import.meta.url),
});
w.release();
