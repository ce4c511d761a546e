/**
 * "Talaria + store": the core flood with the store's recorder on both taps — every frame into
 * the wire log and every entry into the entries table of a SQLite store in a temporary home,
 * committed as the recorder batches them (the turn's end commits synchronously, so the turn's
 * result means "on disk"). Afterwards the store is checked: every frame of the session (the
 * flood plus the 6 handshake frames) is in the wire log, every thread entry in the entries table.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
}

export async function runTalariaStoreFlood(p: FloodParams): Promise<StoreFloodResult> {
  // Imported here so that a store under construction only breaks the cases that use it.
  const { openStore } = await import('../src/store/index.js');
  const { createRecorder } = await import('../src/harness/recorder.js');
  const home = await mkdtemp(join(tmpdir(), 'talaria-bench-store-'));
  try {
    const store = openStore({ home });
    try {
      const key = store.sessions.create({ provider: 'bench-flood', cwd: ROOT }).id;
      const recorder = createRecorder(store, { sessionKey: key });
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
      };
    } finally {
      store.close();
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
