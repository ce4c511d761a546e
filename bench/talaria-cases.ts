/**
 * Talaria cases — TODO stubs until the core (transport → router → reducer → thread events), the
 * store and the host exist. Each stub already carries its metrics and the targets, so the
 * table shows every target from day one as "not yet measured" — never a number, never a pass.
 *
 * To implement one, replace its `run` with a real measurement returning `{ values }` keyed as in
 * `metrics`. The plug-in points:
 *  - core / store / paced: spawn the flood agent with `spawnFlood({frames, rate})` (flood-driver.ts),
 *    drive one turn through Talaria, count updates seen by a thread-event subscriber, record
 *    `stampOf(update)` in a `LatencyRecorder` in that subscriber, return `floodSample(...)`.
 *    The prompt response carries `_meta.framesSent` (see `framesSentOf`).
 *  - startup: mirror `sdkStartupOnce` in startup.ts through Talaria on `opts.startupAgent`, inside
 *    `withStartupEnv` (a private demo-agent home, as the SDK baseline uses).
 *  - history: the flood agent answers `session/load` by replaying `_meta.flood.frames` updates
 *    (each turn opens with a user_message_chunk); stored-thread replay reads the store.
 *  - concurrency: several sessions per flood-agent process are supported (`session/new` gives a
 *    fresh id; a prompt's `_meta.flood = {frames, rate}` overrides the command line).
 *  - memory cases should set `isolate: true` (fresh process, `--expose-gc`, `globalThis.gc`).
 */
import type { BenchCase, BenchOptions, Measurement } from './types.js';

const todo =
  (what: string) =>
  async (_opts: BenchOptions): Promise<Measurement> => ({ notMeasured: `not yet measured (TODO: ${what})`, reason: 'todo' });

const SDK_TP = { case: 'sdk', key: 'framesPerSec' } as const;
const FLOOR_TP = { case: 'floor', key: 'framesPerSec' } as const;

export const talariaCases: BenchCase[] = [
  {
    name: 'talaria.core',
    role: 'candidate',
    description: 'flood → Talaria transport → router → reducer → thread events to a subscriber',
    metrics: [
      { key: 'framesPerSec', unit: 'frames/s', label: 'talaria core throughput', baseline: SDK_TP, target: { kind: 'ratio-at-least', min: 1.0 } },
      { key: 'framesPerSec', unit: 'frames/s', label: 'talaria core throughput', baseline: FLOOR_TP, target: { kind: 'ratio-at-least', min: 0.6 } },
      { key: 'lost', unit: 'frames', label: 'talaria core frames lost', target: { kind: 'equals', expected: 0 } },
    ],
    run: todo('needs the session core: transport + router + reducer'),
  },
  {
    name: 'talaria.core.paced',
    role: 'candidate',
    description: 'paced flood through the core: latency added per frame over the floor',
    metrics: [
      { key: 'latP50Ms', unit: 'ms', label: 'talaria added latency p50', baseline: { case: 'floor.paced', key: 'latP50Ms' }, compare: 'delta' },
      { key: 'latP99Ms', unit: 'ms', label: 'talaria added latency p99', baseline: { case: 'floor.paced', key: 'latP99Ms' }, target: { kind: 'delta-below', limit: 1 } },
    ],
    run: todo('needs the session core'),
  },
  {
    name: 'talaria.store',
    role: 'candidate',
    description: 'core throughput with the store writing every frame and entry',
    metrics: [{ key: 'framesPerSec', unit: 'frames/s', label: 'talaria + store throughput', baseline: SDK_TP, target: { kind: 'ratio-at-least', min: 0.5 } }],
    run: todo('needs the core and src/store'),
  },
  {
    name: 'talaria.startup',
    role: 'candidate',
    description: 'spawn → initialize → session/new through Talaria on the demo agent',
    metrics: [{ key: 'ms', unit: 'ms', label: 'talaria start-up (median)', baseline: { case: 'sdk.startup', key: 'ms' }, target: { kind: 'ratio-at-most', max: 1.05 } }],
    run: todo('needs the session core'),
  },
  {
    name: 'talaria.history.load',
    role: 'candidate',
    isolate: true,
    description: 'session/load replay of 10,000 entries into a thread',
    metrics: [
      { key: 'ms', unit: 'ms', label: 'load replay 10k entries', target: { kind: 'below', limit: 1000 } },
      { key: 'peakMb', unit: 'MB', label: 'load replay peak memory' },
    ],
    run: todo('needs the session core'),
  },
  {
    name: 'talaria.history.stored',
    role: 'candidate',
    isolate: true,
    description: 'stored-thread replay of 10,000 entries from the store',
    metrics: [
      { key: 'ms', unit: 'ms', label: 'stored replay 10k entries', target: { kind: 'below', limit: 1000 } },
      { key: 'peakMb', unit: 'MB', label: 'stored replay peak memory' },
    ],
    run: todo('needs src/store'),
  },
  {
    name: 'talaria.concurrency',
    role: 'candidate',
    description: '50 sessions over 10 flood-agent processes streaming at once',
    metrics: [
      { key: 'lost', unit: 'frames', label: '50 sessions: frames sent − seen', target: { kind: 'equals', expected: 0 } },
      { key: 'framesSent', unit: 'frames', label: '50 sessions: frames sent' },
      { key: 'framesPerSec', unit: 'frames/s', label: '50 sessions: aggregate throughput' },
    ],
    run: todo('needs src/host'),
  },
  {
    name: 'talaria.idle',
    role: 'candidate',
    isolate: true,
    description: 'heap delta over 200 idle sessions',
    metrics: [{ key: 'mbPerSession', unit: 'MB', label: 'memory per idle session', target: { kind: 'below', limit: 2 } }],
    run: todo('needs the session core'),
  },
];
