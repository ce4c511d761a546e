/**
 * talaria-acp/store — the SQLite store (sessions, wire logs, threads, turns, permission audit)
 * and the recorder that writes a session into it as frames arrive.
 */
export { openStore, createRecorder, StoreError } from './store/index.js';
export type { Store, StoreOptions, StoreErrorCode, Recorder, RecorderOptions } from './store/index.js';
