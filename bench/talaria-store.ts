/**
 * "Talaria + store": the core flood with the store's recorder on both taps — every frame into
 * the wire log and every entry into the entries table of a SQLite store in a temporary home,
 * committed as the recorder batches them (the turn's end commits synchronously, so the turn's
 * result means "on disk"). Afterwards the store is checked: every frame of the session (the
 * flood plus the 6 handshake frames) is in the wire log, every thread entry in the entries table.
 * With `url`, the store is that PostgreSQL database instead (talaria-store-pg.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../src/store/index.js';
import type { WriterBatch } from '../src/store/writer-batch.js';
import { ROOT, type FloodParams } from './flood-driver.js';
import { runTalariaFlood, type TalariaFloodResult } from './talaria-flood.js';

/** initialize, session/new and session/prompt: a request and a response each. */
const HANDSHAKE_FRAMES = 6;

export interface StoreFloodResult extends TalariaFloodResult {
  storedFrames: number;
  storedEntries: number;
  /** Frames of the session (flood + handshake) minus wire-log rows: 0, or rows are missing (> 0) or extra (< 0). */
  framesMissing: number;
  /** Thread entries minus stored entry rows, same sign convention. Judged apart from framesMissing, so neither can offset the other. */
  entriesMissing: number;
  /** Each batch commit the recorder made on the main thread (ms): PostgreSQL's (SQLite's go to the writer thread). */
  commitMs: number[];
  /** Frames in each of those commits. */
  commitFrames: number[];
}

export interface StoreFloodParams extends FloodParams {
  /** A PostgreSQL store (`postgres://…`) instead of SQLite in a temporary home. */
  url?: string;
}

/** `store` with its batch commits timed (the recorder calls `commitBatch` when it commits on the main thread). */
function timedCommits(store: Store, ms: number[], n: number[]): Store {
  return new Proxy(store, {
    get(target, prop) {
      if (prop !== 'commitBatch') {
        const v: unknown = Reflect.get(target, prop, target);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      }
      return (b: WriterBatch) => {
        const t0 = performance.now();
        const last = target.commitBatch(b);
        ms.push(performance.now() - t0);
        n.push(b.frames.t.length);
        return last;
      };
    },
  });
}

export async function runTalariaStoreFlood(p: StoreFloodParams): Promise<StoreFloodResult> {
  // Imported here so that a store under construction only breaks the cases that use it.
  const { openStore } = await import('../src/store/index.js');
  const { createRecorder } = await import('../src/harness/recorder.js');
  const home = await mkdtemp(join(tmpdir(), 'talaria-bench-store-'));
  try {
    const store = openStore(p.url ? { url: p.url } : { home });
    try {
      const key = store.sessions.create({ provider: 'bench-flood', cwd: ROOT }).id;
      const commitMs: number[] = [];
      const commitFrames: number[] = [];
      const recorder = createRecorder(timedCommits(store, commitMs, commitFrames), { sessionKey: key });
      const r = await runTalariaFlood({ ...p, sink: recorder });
      recorder.close();
      const storedFrames = store.wire.count(key);
      const storedEntries = store.entries.count(key);
      return {
        ...r,
        storedFrames,
        storedEntries,
        framesMissing: r.framesSent + HANDSHAKE_FRAMES - storedFrames,
        entriesMissing: r.entries - storedEntries,
        commitMs,
        commitFrames,
      };
    } finally {
      store.close();
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
