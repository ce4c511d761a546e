/**
 * The registry: every case `npm run bench` knows, in table order. Baselines live here; the
 * Talaria cases are in talaria-cases.ts. To add a case, append
 * a `BenchCase` — run.ts repeats and interleaves it, report.ts judges its metrics' targets against
 * baselines measured in the same run.
 */
import { floodSample, runProducerSelfTest } from './flood-driver.js';
import { runFloor, runPipeCeiling } from './floor.js';
import { runSdkBaseline } from './sdk-baseline.js';
import { missingAgent, runSdkStartup } from './startup.js';
import { serveCases } from './serve-cases.js';
import { capsCases } from './caps-cases.js';
import { talariaCases } from './talaria-cases.js';
import { acpCases } from './talaria-acp-cases.js';
import { webCases } from './web-ui.js';
import { webLoadCases } from './web-load.js';
import type { BenchCase, MetricSpec } from './types.js';

const FLOOR_TP = { case: 'floor', key: 'framesPerSec' } as const;

/** Throughput + saturated-pipe latency rows of a flood case (that latency is mostly queueing). */
function floodMetrics(label: string, extra: Partial<MetricSpec> = {}): MetricSpec[] {
  return [
    { key: 'framesPerSec', unit: 'frames/s', label: `${label} throughput`, ...extra },
    { key: 'latP50Ms', unit: 'ms', label: `${label} flood latency p50` },
    { key: 'latP99Ms', unit: 'ms', label: `${label} flood latency p99` },
  ];
}

function pacedMetrics(label: string, baseline?: string): MetricSpec[] {
  // Latency against a baseline reads as "added ms", not a ratio.
  const b = baseline ? { baseline: { case: baseline, key: 'latP50Ms' }, compare: 'delta' as const } : {};
  const b99 = baseline ? { baseline: { case: baseline, key: 'latP99Ms' }, compare: 'delta' as const } : {};
  return [
    { key: 'latP50Ms', unit: 'ms', label: `${label} paced latency p50`, ...b },
    { key: 'latP99Ms', unit: 'ms', label: `${label} paced latency p99`, ...b99 },
  ];
}

export const baselineCases: BenchCase[] = [
  {
    name: 'producer',
    role: 'sanity',
    once: true,
    description: 'flood agent writing its frames into /dev/null: proves the producer is not the bottleneck',
    metrics: [{ key: 'framesPerSec', unit: 'frames/s', label: 'producer → /dev/null', baseline: FLOOR_TP }],
    run: async (o) => {
      // At least 50k frames: a tiny quick-mode run would measure the JIT, not the producer.
      const r = await runProducerSelfTest(Math.max(o.frames, 50_000));
      return { values: { framesPerSec: r.framesPerSec, buildMs: r.buildMs } };
    },
  },
  {
    name: 'pipe',
    role: 'sanity',
    description: 'same flood read through the pipe counting newlines only (no parse)',
    metrics: [{ key: 'framesPerSec', unit: 'frames/s', label: 'pipe ceiling (no parse)', baseline: FLOOR_TP }],
    run: async (o) => floodSample(await runPipeCeiling({ frames: o.frames })),
  },
  {
    name: 'floor',
    role: 'baseline',
    description: 'bare NDJSON loop: split lines, JSON.parse, count',
    metrics: floodMetrics('floor'),
    run: async (o) => floodSample(await runFloor({ frames: o.frames })),
  },
  {
    name: 'sdk',
    role: 'baseline',
    description: 'official SDK client (ndJsonStream + router) with a no-op session/update handler',
    metrics: floodMetrics('sdk', { baseline: FLOOR_TP }),
    run: async (o) => floodSample(await runSdkBaseline({ frames: o.frames })),
  },
  {
    name: 'floor.paced',
    role: 'baseline',
    description: "floor at a fixed pace below every consumer's capacity: per-frame latency without queueing",
    metrics: pacedMetrics('floor'),
    run: async (o) => floodSample(await runFloor({ frames: o.pacedFrames, rate: o.pacedRate })),
  },
  {
    name: 'sdk.paced',
    role: 'baseline',
    description: 'SDK client at the same pace',
    metrics: pacedMetrics('sdk', 'floor.paced'),
    run: async (o) => floodSample(await runSdkBaseline({ frames: o.pacedFrames, rate: o.pacedRate })),
  },
  {
    name: 'sdk.startup',
    role: 'baseline',
    description: 'spawn → initialize → session/new through the bare SDK on the demo agent',
    metrics: [{ key: 'ms', unit: 'ms', label: 'sdk start-up (median)' }],
    run: async (o) => {
      const missing = missingAgent(o.startupAgent, o.root);
      if (missing) return { notMeasured: `skipped: ${missing}`, reason: 'skipped' };
      return { values: { ms: await runSdkStartup(o.startupAgent, o.startupRuns, o.root) } };
    },
  },
];

export const cases: BenchCase[] = [
  ...baselineCases,
  ...talariaCases,
  ...acpCases,
  ...serveCases,
  ...capsCases,
  ...webCases,
  ...webLoadCases,
];

/** Selected cases plus, transitively, the baselines their metrics compare against. */
export function selectCases(all: readonly BenchCase[], only: readonly string[]): BenchCase[] {
  if (!only.length) return [...all];
  // Exact names; a trailing `*` matches a prefix (`talaria.*`).
  const matches = (c: BenchCase, pat: string): boolean =>
    pat.endsWith('*') ? c.name.startsWith(pat.slice(0, -1)) : c.name === pat;
  for (const pat of only) {
    if (!all.some((c) => matches(c, pat)))
      throw new Error(`--only ${pat}: no such case (have: ${all.map((c) => c.name).join(', ')})`);
  }
  const want = new Set(all.filter((c) => only.some((p) => matches(c, p))).map((c) => c.name));
  for (let grew = true; grew;) {
    grew = false;
    for (const c of all) {
      if (!want.has(c.name)) continue;
      for (const m of c.metrics) {
        if (m.baseline && !want.has(m.baseline.case)) {
          want.add(m.baseline.case);
          grew = true;
        }
      }
    }
  }
  return all.filter((c) => want.has(c.name));
}
