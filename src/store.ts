/**
 * talaria-acp/store — the SQLite store (sessions, wire logs, threads, turns, permission audit)
 * and the recorder that writes a session into it as frames arrive.
 */
export { openStore, StoreError } from './store/index.js';
export { createRecorder } from './harness/recorder.js';
export type { Store, StoreOptions, StoreErrorCode } from './store/index.js';
export type { Recorder, RecorderOptions } from './harness/recorder.js';
