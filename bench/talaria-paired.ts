/**
 * Talaria core runs paired with floor runs. The load on these machines drifts over seconds; a
 * ratio (or a latency difference) taken between two runs made back to back cancels most of that
 * drift, where one taken between medians of runs far apart in time does not. Each call makes pairs
 * two at a time, in both orders (Talaria first, then the floor first), and returns each pair as a
 * sample: the report's median is over every pair of the run. The saturated floods make PAIR_ROUNDS
 * rounds of two, the paced one a single round.
 */
import { floodSample, type FloodResult } from './flood-driver.js';
import { runFloor } from './floor.js';
import { runTalariaFlood, type TalariaFloodResult } from './talaria-flood.js';
import { runTalariaStoreFlood, type StoreFloodResult } from './talaria-store.js';
import type { Sample, SampleSet } from './types.js';

/**
 * `rounds` rounds of two pairs, in both orders (a, b, then b, a); each pair is a sample. `b` is told
 * which of its round's two runs it is, so a side made of two runs can turn its own order round too.
 */
async function pairRounds<A, B>(
  rounds: number,
  a: () => Promise<A>,
  b: (second: boolean) => Promise<B>,
  sample: (a: A, b: B) => Sample,
): Promise<SampleSet> {
  const samples: Sample[] = [];
  for (let r = 0; r < rounds; r++) {
    const a1 = await a();
    const b1 = await b(false);
    const b2 = await b(true);
    const a2 = await a();
    samples.push(sample(a1, b1), sample(a2, b2));
  }
  return { samples };
}

/** `rounds` unmeasured rounds, each of the given runs in turn (the warm-up of every paired call). */
async function warmUp(rounds: number, ...runs: (() => Promise<unknown>)[]): Promise<void> {
  for (let i = 0; i < rounds; i++) for (const run of runs) await run();
}

/**
 * Measured (2026-12-07, quiet machine, one process, 100k-frame runs): the core read 218k, 248k, 308k,
 * 318k, 306k frames per CPU-second in its first five runs, the keep floor 249k, 313k, 312k, 318k,
 * 320k. After one warm-up round the pairs compared a core still compiling with a warm floor (0.85);
 * after three both are steady.
 */
const CORE_WARMUP_ROUNDS = 3;

/**
 * Rounds of pairs per call (each round two pairs, in both orders). On this 2-core VM one warm run of
 * 100k frames took 287 to 486 ms of main-thread CPU for the same work in one process (scratch,
 * 2026-12-07): single pairs of core and keep floor read 0.62 to 1.57. The median over 16 pairs read
 * 1.00 where 6 pairs read 0.83 to 1.17 from one run of the bench to the next; 3 rounds a call give
 * 30 pairs over the default 5 repetitions (`rounds` says otherwise: one for a quick run).
 */
export const PAIR_ROUNDS = 3;

/**
 * Saturated flood: throughput ratio to the floor, by wall clock and by consumer CPU time, and (for
 * reading only) per CPU time to a floor that keeps the conversation (floor.ts, `keep`): the bare
 * floor keeps nothing, where any client that shows a conversation keeps at least its text, and
 * pays for that in allocation and garbage collection. Each pair runs all three, in both orders.
 * With `warmup`, CORE_WARMUP_ROUNDS full-size rounds run first and are not counted: in a fresh
 * process the core's figure keeps rising over its first few hundred thousand frames while V8
 * compiles it (the floors, with a tenth of the code, are steady after one run), which a
 * long-running client pays once.
 */
export async function runCorePairs(frames: number, o: { warmup?: boolean; rounds?: number } = {}): Promise<SampleSet> {
  const talaria = () => runTalariaFlood({ frames });
  const floor = () => runFloor({ frames });
  const keep = () => runFloor({ frames, keep: true });
  if (o.warmup) await warmUp(CORE_WARMUP_ROUNDS, talaria, floor, keep);
  const sample = (t: TalariaFloodResult, f: FloodResult, k: FloodResult): Sample => {
    const s = floodSample(t);
    const values = {
      ...s.values,
      floorFps: f.framesPerSec,
      floorP99Ms: f.latency.p99,
      floorRatio: t.framesPerSec / f.framesPerSec,
      // Frames per second of the consumer's own CPU: what each costs, not counting time spent
      // waiting for a core that other processes held.
      cpuRatio: t.framesPerCpuSec / f.framesPerCpuSec,
      keepCpuRatio: t.framesPerCpuSec / k.framesPerCpuSec,
      keepFloorCpuRatio: k.framesPerCpuSec / f.framesPerCpuSec,
    };
    return { values, notes: s.notes ?? [] };
  };
  // Per round: talaria, floor, keep, then keep, floor, talaria.
  const floors = async (second: boolean) => {
    if (second) {
      const k = await keep();
      return { f: await floor(), k };
    }
    const f = await floor();
    return { f, k: await keep() };
  };
  return pairRounds(o.rounds ?? PAIR_ROUNDS, talaria, floors, (t, { f, k }) => sample(t, f, k));
}

/**
 * Talaria + store, each run paired with a core run (s, t, then t, s): the store's figure is a
 * ratio to the core, and the two measured in separate processes minutes apart swung with the
 * machine (scratch: the same tree read 0.49 to 0.84 between runs), where a pair shares its load.
 * With `warmup`, CORE_WARMUP_ROUNDS full-size runs of each first, not counted (as runCorePairs).
 */
export async function runStorePairs(frames: number, o: { warmup?: boolean; rounds?: number } = {}): Promise<SampleSet> {
  const store = () => runTalariaStoreFlood({ frames });
  const core = () => runTalariaFlood({ frames });
  if (o.warmup) await warmUp(CORE_WARMUP_ROUNDS, store, core);
  const sample = (s: StoreFloodResult, t: TalariaFloodResult): Sample => {
    const f = floodSample(s);
    const { framesMissing, entriesMissing, storedFrames, storedEntries } = s;
    const values = {
      ...f.values,
      framesMissing,
      entriesMissing,
      storedFrames,
      storedEntries,
      coreFps: t.framesPerSec,
      coreRatio: s.framesPerSec / t.framesPerSec,
      coreCpuRatio: s.framesPerCpuSec / t.framesPerCpuSec,
    };
    return { values, notes: f.notes ?? [] };
  };
  return pairRounds(o.rounds ?? PAIR_ROUNDS, store, core, sample);
}

/**
 * Paced runs of each side before a paced call's pairs, not counted. Measured (2026-12-07, `node
 * --trace-opt --trace-deopt`, 10k frames at 10k/s, one fresh process): V8 was still optimizing the
 * core's read path in its 2nd to 6th paced run (14, 15, 4 and 9 functions compiled again after
 * "not a Smi" and "wrong map" deopts), and those runs read 0.6–3.0 ms at p99 where the floor read
 * 0.2–1.3; from the 7th on, 0–1 functions a run and 0.28–0.49 ms (the floor 0.22–0.55). Small paced
 * reads tier code up far more slowly than a saturated flood, and the compiler's threads then take a
 * core from the reader on this 2-core machine. A long-running client pays this once.
 */
const PACED_WARMUP_RUNS = 6;

/**
 * Paced flood: per-frame latency over the floor's, and Talaria's own in-process share of it. With
 * `warmup`, PACED_WARMUP_RUNS runs of each side go first, not counted; then one round of two pairs.
 */
export async function runPacedPairs(frames: number, rate: number, o: { warmup?: boolean } = {}): Promise<SampleSet> {
  const talaria = () => runTalariaFlood({ frames, rate, tapLatency: true });
  const floor = () => runFloor({ frames, rate });
  if (o.warmup) await warmUp(PACED_WARMUP_RUNS, talaria, floor);
  return pairRounds(1, talaria, floor, (t, f) => {
    const s = floodSample(t);
    const values = {
      ...s.values,
      floorP50Ms: f.latency.p50,
      floorP99Ms: f.latency.p99,
      addedP50Ms: t.latency.p50 - f.latency.p50,
      addedP99Ms: t.latency.p99 - f.latency.p99,
      tapP50Ms: t.tap?.p50 ?? NaN,
      tapP99Ms: t.tap?.p99 ?? NaN,
    };
    return { values, notes: s.notes ?? [] };
  });
}
