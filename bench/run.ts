/**
 * `npm run bench [-- options]`: run the cases, print the table, write bench/results/*.json.
 *
 * These machines are noisy (2 shared cores), so: one warm-up pass, then R repetitions in which
 * the cases are interleaved (rotated each repetition, so no case always runs first or last);
 * each figure is the median over repetitions, and every ratio uses a baseline from THIS run.
 *
 *   --quick              tiny sizes, one repetition, no warm-up (a smoke run)
 *   --only a,b           only these cases (names; `talaria.*` matches a prefix); the baselines
 *                        their rows compare against are added
 *   --reps N             repetitions (default 5)
 *   --frames N           frames per flood turn (default 100000)
 *   --paced-frames N, --paced-rate R   paced latency turns (default 10000 at 10000 frames/s)
 *   --startup-runs K     spawns per sdk.startup sample; talaria.startup runs 2K Talaria/SDK pairs (default 3)
 *   --history-entries N  entries in the history cases' session (default 10000)
 *   --sessions S, --processes P          concurrency (default 50 sessions over 10 agents)
 *   --idle-sessions S, --idle-processes P  idle memory (default 200 sessions over 4 agents)
 *   --startup-agent CMD  agent command for start-up (default: node --import tsx src/demo/main.ts;
 *                        also TALARIA_BENCH_AGENT)
 *   --no-warmup, --list, --results-dir DIR
 *
 * Exit status: 1 when any target is missed or cannot be judged, or a case errored (report.ts
 * missedTargets); 2 on bad options.
 */
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { cases as allCases, selectCases } from './cases.js';
import { ROOT } from './flood-driver.js';
import { runIsolated } from './isolate.js';
import { buildRows, formatNotes, formatTable, missedTargets, writeReport, type BenchReport } from './report.js';
import { defaultStartupAgent, splitCommand } from './startup.js';
import { medianByKey } from './stats.js';
import {
  isNotMeasured,
  samplesOf,
  type BenchCase,
  type BenchOptions,
  type CaseResult,
  type Sample,
  type SampleSet,
} from './types.js';

interface Cli {
  opts: BenchOptions;
  reps: number;
  only: string[];
  warmup: boolean;
  list: boolean;
  resultsDir: string;
}

function parseCli(argv: string[]): Cli {
  const quick = argv.includes('--quick');
  const opts: BenchOptions = {
    quick,
    frames: quick ? 2_000 : 100_000,
    pacedFrames: quick ? 500 : 10_000,
    pacedRate: quick ? 5_000 : 10_000,
    startupRuns: quick ? 1 : 3,
    startupAgent: defaultStartupAgent(),
    root: ROOT,
    historyEntries: quick ? 300 : 10_000,
    sessions: quick ? 4 : 50,
    processes: quick ? 2 : 10,
    idleSessions: quick ? 10 : 200,
    idleProcesses: quick ? 2 : 4,
  };
  const cli: Cli = {
    opts,
    reps: quick ? 1 : 5,
    only: [],
    warmup: !quick,
    list: false,
    resultsDir: fileURLToPath(new URL('./results', import.meta.url)),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const val = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    const int = (): number => {
      const n = Number(val());
      if (!Number.isInteger(n) || n <= 0) throw new Error(`${a} needs a positive integer`);
      return n;
    };
    if (a === '--quick') continue;
    else if (a === '--only') cli.only.push(...val().split(',').filter(Boolean));
    else if (a === '--reps') cli.reps = int();
    else if (a === '--frames') opts.frames = int();
    else if (a === '--paced-frames') opts.pacedFrames = int();
    else if (a === '--paced-rate') opts.pacedRate = int();
    else if (a === '--startup-runs') opts.startupRuns = int();
    else if (a === '--startup-agent') opts.startupAgent = splitCommand(val());
    else if (a === '--history-entries') opts.historyEntries = int();
    else if (a === '--sessions') opts.sessions = int();
    else if (a === '--processes') opts.processes = int();
    else if (a === '--idle-sessions') opts.idleSessions = int();
    else if (a === '--idle-processes') opts.idleProcesses = int();
    else if (a === '--no-warmup') cli.warmup = false;
    else if (a === '--list') cli.list = true;
    else if (a === '--results-dir') cli.resultsDir = val();
    else throw new Error(`unknown option ${a} (see the header of bench/run.ts)`);
  }
  return cli;
}

// Best-effort collection between runs so one case's garbage is not the next one's pause.
let gc: () => void = () => {};
try {
  setFlagsFromString('--expose-gc');
  gc = runInNewContext('gc') as () => void;
} catch {
  /* not available: runs are still interleaved */
}

const log = (s: string): void => void process.stderr.write(s + '\n');

async function runOne(c: BenchCase, opts: BenchOptions): Promise<ReturnType<BenchCase['run']>> {
  gc();
  return c.isolate ? runIsolated(c.name, opts) : c.run(opts);
}

function warmupOpts(o: BenchOptions): BenchOptions {
  return {
    ...o,
    frames: Math.max(1_000, Math.floor(o.frames / 10)),
    pacedFrames: Math.max(200, Math.floor(o.pacedFrames / 10)),
    startupRuns: 1,
    // Same code paths as the full run, without spawning ten agents.
    sessions: Math.min(o.sessions, 4),
    processes: Math.min(o.processes, 2),
  };
}

function brief(m: Sample | SampleSet): string {
  const all = samplesOf(m);
  const s = all[0];
  if (!s) return 'no samples';
  const more = all.length > 1 ? ` (first of ${all.length} pairs)` : '';
  return briefOne(s) + more;
}

function briefOne(s: Sample): string {
  const v = s.values;
  const fps = v['framesPerSec'];
  const p99 = v['latP99Ms'];
  if (fps !== undefined) {
    const lat = p99 !== undefined && Number.isFinite(p99) ? `, latency p99 ${p99.toFixed(2)} ms` : '';
    return `${Math.round(fps).toLocaleString('en-US')} frames/s${lat}`;
  }
  return Object.entries(v)
    .map(([k, x]) => `${k}=${x.toFixed(2)}`)
    .join(' ');
}

async function main(): Promise<number> {
  const cli = parseCli(process.argv.slice(2));
  if (cli.list) {
    for (const c of allCases) log(`${c.name.padEnd(24)} ${c.role.padEnd(9)} ${c.description}`);
    return 0;
  }
  const selected = selectCases(allCases, cli.only);
  const startedAt = new Date().toISOString();
  const cpu = cpus();
  log(
    `talaria bench — node ${process.version}, ${cpu.length} cpus, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  log(
    `frames ${cli.opts.frames}, paced ${cli.opts.pacedFrames} @ ${cli.opts.pacedRate}/s, reps ${cli.reps}, cases: ${selected.map((c) => c.name).join(', ')}`,
  );

  const samples = new Map<string, Sample[]>(selected.map((c) => [c.name, []]));
  const results = new Map<string, CaseResult>();
  const finished = new Set<string>(); // not measured or failed: not repeated
  const settle = (c: BenchCase, m: Awaited<ReturnType<BenchCase['run']>> | Error): void => {
    if (m instanceof Error) {
      results.set(c.name, { name: c.name, role: c.role, samples: [], medians: {}, error: m.message, notes: [] });
      finished.add(c.name);
      log(`  ${c.name}: ERROR ${m.message}`);
    } else if (isNotMeasured(m)) {
      results.set(c.name, { name: c.name, role: c.role, samples: [], medians: {}, notMeasured: m, notes: [] });
      finished.add(c.name);
    } else {
      samples.get(c.name)!.push(...samplesOf(m));
    }
  };

  const repeated = selected.filter((c) => !c.once);
  for (const c of selected.filter((x) => x.once)) {
    const m = await runOne(c, cli.opts).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    settle(c, m);
    finished.add(c.name);
    if (!(m instanceof Error) && !isNotMeasured(m)) log(`  ${c.name}: ${brief(m)}`);
  }
  if (cli.warmup) {
    log('warm-up…');
    // Isolated cases run in a fresh process every time: warming this one up would not help them.
    for (const c of repeated.filter((x) => !x.isolate)) await runOne(c, warmupOpts(cli.opts)).catch(() => undefined);
  }
  for (let rep = 0; rep < cli.reps; rep++) {
    const todo = repeated.filter((c) => !finished.has(c.name));
    const order = todo.map((_, i) => todo[(i + rep) % todo.length]!); // rotate each repetition
    log(`rep ${rep + 1}/${cli.reps}`);
    for (const c of order) {
      const m = await runOne(c, cli.opts).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
      settle(c, m);
      if (!(m instanceof Error) && !isNotMeasured(m)) log(`  ${c.name}: ${brief(m)}`);
    }
  }
  for (const c of selected) {
    if (results.has(c.name)) continue;
    const s = samples.get(c.name)!;
    results.set(c.name, {
      name: c.name,
      role: c.role,
      samples: s,
      medians: medianByKey(s),
      notes: s.flatMap((x) => x.notes ?? []),
    });
  }

  const rows = buildRows(selected, results);
  const ordered = selected.map((c) => results.get(c.name)!);
  process.stdout.write('\n' + formatTable(rows) + '\n');
  const notes = formatNotes(ordered, rows);
  if (notes.length) process.stdout.write('\n' + notes.map((n) => `note: ${n}`).join('\n') + '\n');
  const producer = results.get('producer')?.medians['framesPerSec'];
  const floor = results.get('floor')?.medians['framesPerSec'];
  if (producer && floor && producer < 2 * floor) {
    process.stdout.write(
      `warning: the producer (${Math.round(producer)}/s) is not far above the floor (${Math.round(floor)}/s): throughput may be producer-bound\n`,
    );
  }
  const report: BenchReport = {
    startedAt,
    finishedAt: new Date().toISOString(),
    command: `tsx bench/run.ts ${process.argv.slice(2).join(' ')}`.trim(),
    host: {
      node: process.version,
      platform: process.platform,
      cpus: cpu.length,
      cpuModel: cpu[0]?.model ?? '',
      loadavg: loadavg(),
    },
    options: { ...cli.opts, reps: cli.reps, warmup: cli.warmup },
    cases: ordered,
    rows,
  };
  const file = await writeReport(report, cli.resultsDir);
  process.stdout.write(`\nwrote ${file} (and latest.json)\n`);
  const missed = missedTargets(rows);
  if (missed.length === 0) return 0;
  process.stdout.write(`\nbench FAILED: ${missed.map((r) => `${r.name} (${r.status.toUpperCase()})`).join('; ')}\n`);
  return 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      log(e instanceof Error ? e.message : String(e));
      process.exit(2);
    },
  );
}
