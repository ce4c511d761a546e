/**
 * Where "talaria + store" spends its time (issue 36's store row, informational): three floods in
 * one process, paired as the store row pairs them — the core alone, the core with the recorder
 * doing everything but SQL (its batches are made and dropped: `commitBatch` answers without
 * writing), and the real store — then the batches of one real run committed again into fresh
 * stores on this thread, with only their frames, only their entries, and whole. The first ratio is
 * what the recorder's own work on the event loop leaves of the core; the milliseconds are what
 * SQLite takes on the main connection for the same bytes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../src/store/index.js';
import { emptyEntryColumns, type WriterBatch } from '../src/store/writer-batch.js';
import { ROOT } from './flood-driver.js';
import { runTalariaFlood } from './talaria-flood.js';
import type { Sample, SampleSet } from './types.js';

type Mode = 'sql-free' | 'capture';

/** A recorder on a store whose batch commits are replaced (sql-free) or copied aside (capture). */
async function recordedFlood(frames: number, mode: Mode, kept: WriterBatch[] = []) {
  const { openStore } = await import('../src/store/index.js');
  const { createRecorder } = await import('../src/harness/recorder.js');
  const home = await mkdtemp(join(tmpdir(), 'talaria-bench-parts-'));
  const store = openStore({ home });
  try {
    const key = store.sessions.create({ provider: 'bench-flood', cwd: ROOT }).id;
    let seq = 0;
    const commit =
      mode === 'sql-free'
        ? (b: WriterBatch) => (seq += 'bytes' in b.frames ? b.frames.len.length : b.frames.line.length)
        : (b: WriterBatch) => (kept.push(b), store.commitBatch(b));
    const wrapped = new Proxy(store, {
      get(target, prop) {
        if (prop === 'commitBatch') return commit;
        const v: unknown = Reflect.get(target, prop, target);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as Store;
    const recorder = createRecorder(wrapped, { sessionKey: key });
    const r = await runTalariaFlood({ frames, sink: recorder });
    recorder.close();
    return r;
  } finally {
    store.close();
    await rm(home, { recursive: true, force: true });
  }
}

/** Milliseconds to commit `batches` (reshaped by `shape`) into a fresh store on this thread. */
async function replay(batches: WriterBatch[], shape: (b: WriterBatch) => WriterBatch): Promise<number> {
  const { openStore } = await import('../src/store/index.js');
  const home = await mkdtemp(join(tmpdir(), 'talaria-bench-parts-'));
  const store = openStore({ home });
  try {
    const key = batches[0]?.key ?? 'none';
    store.sessions.create({ id: key, provider: 'bench-flood', cwd: ROOT });
    const shaped = batches.map(shape);
    const t0 = performance.now();
    for (const b of shaped) store.commitBatch(b);
    return performance.now() - t0;
  } finally {
    store.close();
    await rm(home, { recursive: true, force: true });
  }
}

export async function runStoreParts(frames: number, o: { warmup?: boolean } = {}): Promise<SampleSet> {
  const core = () => runTalariaFlood({ frames });
  const sqlFree = () => recordedFlood(frames, 'sql-free');
  if (o.warmup) {
    await core();
    await sqlFree();
  }
  const samples: Sample[] = [];
  for (const order of [0, 1]) {
    const kept: WriterBatch[] = [];
    const runs = order === 0 ? [core, sqlFree] : [sqlFree, core];
    const [a, b] = [await runs[0]!(), await runs[1]!()];
    const [c, s] = order === 0 ? [a, b] : [b, a];
    const full = await recordedFlood(frames, 'capture', kept);
    const per100k = 100_000 / frames;
    const framesOnly = await replay(kept, (x) => ({ ...x, entries: emptyEntryColumns(), rest: '' }));
    const entriesOnly = await replay(kept, (x) => ({
      ...x,
      frames: { t: [], dir: [], line: [] },
    }));
    const whole = await replay(kept, (x) => x);
    samples.push({
      values: {
        sqlFreeRatio: s.framesPerSec / c.framesPerSec,
        storeRatio: full.framesPerSec / c.framesPerSec,
        commitFramesMs: framesOnly * per100k,
        commitEntriesMs: entriesOnly * per100k,
        commitWholeMs: whole * per100k,
        frameBytes: kept.reduce((n, x) => n + ('bytes' in x.frames ? x.frames.bytes.byteLength : 0), 0) / frames,
        entryChars: kept.reduce((n, x) => n + x.entries.json.reduce((m, j) => m + j.length, 0), 0) / frames,
      },
    });
  }
  return { samples };
}
