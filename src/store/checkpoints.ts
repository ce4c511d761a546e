/**
 * Checkpoints off the event loop. A stream that never pauses fills the WAL; SQLite's own
 * checkpoint then runs on the connection that committed last — the main thread, which reads the
 * agents — and copies the whole WAL there (~150 ms for its 64 MiB bound, measured on the flood
 * bench). Instead, every `everyBytes` the store commits on its main connection, the store's
 * writer thread (writer-thread.ts: one per file, its own connection) is asked to checkpoint;
 * WAL lets it copy while the main connection goes on committing, and once it has copied
 * everything the next commit starts the WAL over. SQLite's bound (db.ts) stays as the backstop
 * if the thread falls behind, and checkpoints here on the main thread when it cannot run at all.
 * Idle checkpoints (the recorder's, between turns) stay on the main connection: they copy little.
 */
import type { Logger } from '../protocol/types.js';
import { acquireWriterThread, type WriterThread } from './writer-thread.js';
import type { WriterBatch } from './writer-batch.js';

/** Bytes committed on the main connection between two checkpoints on the writer thread. */
export const CHECKPOINT_EVERY_BYTES = 16 * 1024 * 1024;

export interface BackgroundCheckpoints {
  /** A batch was committed on the main connection. */
  committed(b: WriterBatch): void;
  /** Checkpoints the writer thread has run for this store (tests). */
  readonly checkpoints: number;
  /** Lets the thread go (it closes its connection before this returns). */
  close(): void;
}

export interface BackgroundCheckpointOptions {
  path: string;
  everyBytes?: number;
  logger?: Logger;
  /** The main connection's own checkpoint, when the thread cannot run. */
  here: () => void;
}

/** What a batch adds to the WAL, about: its frames' bytes and its entries' text. */
function batchBytes(b: WriterBatch): number {
  const f = b.frames;
  let n = 'bytes' in f ? f.bytes.byteLength : f.line.reduce((s, l) => s + l.length, 0);
  for (const j of b.entries.json) n += j.length;
  for (const t of b.entries.tailText) n += t.length;
  return n + b.rest.length;
}

export function backgroundCheckpoints(o: BackgroundCheckpointOptions): BackgroundCheckpoints {
  const every = Math.max(1, o.everyBytes ?? CHECKPOINT_EVERY_BYTES);
  let bytes = 0;
  let thread: WriterThread | undefined;
  let closed = false;
  return {
    committed(b) {
      if (closed) return;
      bytes += batchBytes(b);
      if (bytes < every) return;
      bytes = 0;
      thread ??= acquireWriterThread({ path: o.path, ...(o.logger ? { logger: o.logger } : {}) });
      if (thread.checkpoint()) return;
      try {
        o.here();
      } catch (err) {
        // Nothing is lost: the WAL keeps the frames until a later checkpoint copies them.
        o.logger?.warn('store: checkpoint failed', { path: o.path, error: String(err) });
      }
    },
    get checkpoints() {
      return thread?.checkpoints ?? 0;
    },
    close() {
      closed = true;
      thread?.release();
      thread = undefined;
    },
  };
}
