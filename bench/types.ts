/**
 * Types shared by the benchmark harness: what a case is, what one run of it returns, and how a
 * figure is judged against a baseline measured in the same run.
 */

/** Options every case receives; `quick` shrinks everything for a smoke run. */
export interface BenchOptions {
  quick: boolean;
  /** Frames per flood turn (throughput cases). */
  frames: number;
  /** Frames per paced turn (latency cases) and the pace in frames/s. */
  pacedFrames: number;
  pacedRate: number;
  /** Spawns per start-up sample. */
  startupRuns: number;
  /** Command that starts the demo agent for start-up cases (argv[0] + args). */
  startupAgent: string[];
  /** Repository root (absolute), for resolving agent files. */
  root: string;
  /** Entries in the history cases' session (10,000). */
  historyEntries: number;
  /** Concurrency: sessions spread over agent processes (50 over 10). */
  sessions: number;
  processes: number;
  /** Idle memory: sessions spread over agent processes (200 over 4). */
  idleSessions: number;
  idleProcesses: number;
}

/** One run of a case: named numbers (medians are taken per key across repetitions). */
export interface Sample {
  values: Record<string, number>;
  /** Free-form remarks shown under the table (e.g. "1 frame had no stamp"). */
  notes?: string[];
}

/** A case that cannot produce a figure: a TODO stub, or a missing prerequisite. */
export interface NotMeasured {
  notMeasured: string;
  /** `todo` = not implemented yet; `skipped` = prerequisite missing (e.g. demo agent absent). */
  reason: 'todo' | 'skipped';
}

/**
 * Several samples from one run: a case that measures in pairs returns each pair as a sample, so
 * the median is taken over every pair of the run rather than over per-run averages.
 */
export interface SampleSet {
  samples: Sample[];
}

export type Measurement = Sample | SampleSet | NotMeasured;

export function samplesOf(m: Sample | SampleSet): Sample[] {
  return 'samples' in m ? m.samples : [m];
}

export function isNotMeasured(m: Measurement): m is NotMeasured {
  return 'notMeasured' in m;
}

/** A figure of another case measured in the same run: its median for `key`. */
export interface MetricRef {
  case: string;
  key: string;
  /** Shown in the baseline column instead of the case name (e.g. a baseline a case measures itself). */
  label?: string;
}

/**
 * How a figure passes. Ratios and deltas compare against `MetricSpec.baseline`, which must have
 * been measured in the same run; without it the row reports "no baseline", never pass.
 */
export type Target =
  | { kind: 'ratio-at-least'; min: number } // value / baseline ≥ min (throughput)
  | { kind: 'ratio-at-most'; max: number } // value / baseline ≤ max (start-up overhead)
  | { kind: 'delta-below'; limit: number } // value − baseline < limit (added latency)
  | { kind: 'below'; limit: number } // value < limit (absolute)
  | { kind: 'at-most'; max: number } // value ≤ max (absolute, e.g. a paired ratio)
  | { kind: 'at-least'; min: number } // value ≥ min (absolute, e.g. a paired ratio)
  | { kind: 'equals'; expected: number }; // value === expected (frames lost)

/** One row of the report. Declare the same key twice to judge it against two baselines. */
export interface MetricSpec {
  key: string;
  unit: string;
  /** Row label; defaults to `<case> <key>`. */
  label?: string;
  baseline?: MetricRef;
  /** Show value / baseline (default) or value − baseline (default for `delta-below`). */
  compare?: 'ratio' | 'delta';
  target?: Target;
}

export interface BenchCase {
  name: string;
  /** For display and ordering of the table only; runs are interleaved whatever the role. */
  role: 'baseline' | 'candidate' | 'sanity';
  description: string;
  metrics: MetricSpec[];
  /** Run in a fresh child process (memory figures need a clean heap). Default: in-process. */
  isolate?: boolean;
  /** Not warmed up / repeated (e.g. it repeats internally). Default: repeated like the others. */
  once?: boolean;
  run(opts: BenchOptions): Promise<Measurement>;
}

/** Aggregated over repetitions, as the report sees it. */
export interface CaseResult {
  name: string;
  role: BenchCase['role'];
  samples: Sample[];
  /** Median per key over samples. */
  medians: Record<string, number>;
  notMeasured?: NotMeasured;
  error?: string;
  notes: string[];
}

export type RowStatus = 'pass' | 'fail' | 'info' | 'todo' | 'skipped' | 'no baseline' | 'error';

export interface ReportRow {
  name: string;
  value: number | null;
  unit: string;
  baseline: string | null;
  baselineValue: number | null;
  /** value / baseline (or value − baseline for delta targets). */
  ratio: number | null;
  ratioKind: 'ratio' | 'delta' | null;
  target: string | null;
  status: RowStatus;
  note?: string;
}
