/**
 * What the slowest frames through `talaria acp` waited on (issue 15). One paced run through the
 * proxy (as talaria.acp.paced), with the proxy under `--cpu-prof`; each frame's stamp and arrival
 * are kept, and for the frames at or above the p99 the profile says what the proxy was doing
 * between the agent's stamp and the editor's read: GC, the recorder's commits or checkpoint, the
 * stdout write, the forward, the core, or nothing at all ("not running": waiting for input or for
 * a CPU, which on a shared 2-core machine is the other processes' turn).
 *
 * The profiler samples wall time (a descheduled thread shows as its last state or idle), and it
 * slows the proxy a little: the causes are what this is for, not the absolute figures. The
 * profile's clock (monotonic µs) is put in the stamps' domain by a preload that reads both clocks
 * at once.
 *
 *   npx tsx bench/talaria-acp-stalls.ts [frames] [rate] [runs] [node flags for the proxy…]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stampOf } from './flood-driver.js';
import { stampNow } from './flood-frames.js';
import { runProxyFlood } from './talaria-acp.js';
import { PROXY_WARMUP_TURNS } from './talaria-acp-cases.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** First match wins: a stall inside a recorder commit is the recorder's even when GC ran in it. */
const CAUSES: [string, (fn: string, url: string) => boolean][] = [
  ['gc', (fn) => fn === '(garbage collector)'],
  ['recorder checkpoint', (fn, url) => fn === 'checkpoint' && url.includes('/recorder.')],
  [
    'recorder commit',
    (_, url) => url.includes('/harness/recorder.') || url.includes('/store/') || url.includes('better-sqlite3'),
  ],
  ['stdout write', (fn, url) => fn === 'writeBuffer' || fn === 'writeUtf8String' || url.includes('/acp/line-out.')],
  ['proxy forward', (_, url) => url.includes('/harness/acp/')],
  ['core (read, parse, reduce)', (_, url) => /\/(protocol|session|thread)\//.test(url)],
  ['not running', (fn) => fn === '(idle)'],
  ['v8 (compile, runtime)', (fn) => fn === '(program)'],
];

/** Each sample's cause, from its stack (leaf first). */
function causes(p: CpuProfile): string[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, string>();
  const of = (id: number): string => {
    const hit = memo.get(id);
    if (hit) return hit;
    let cause = 'other';
    for (const [name, test] of CAUSES) {
      let at: number | undefined = id;
      let found = false;
      while (at !== undefined && !found) {
        const f = byId.get(at)!.callFrame;
        found = test(f.functionName, f.url);
        at = parent.get(at);
      }
      if (found) {
        cause = name;
        break;
      }
    }
    memo.set(id, cause);
    return cause;
  };
  return p.samples.map(of);
}

export interface StallReport {
  frames: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Frames at or above the p99, grouped into episodes (overlapping stamp → arrival windows). */
  slowFrames: number;
  episodes: number;
  /** Profile ms inside those windows, by cause. */
  causesMs: Record<string, number>;
  /** The worst episodes: start (ms into the turn), frames, worst latency, main cause. */
  worst: { atMs: number; frames: number; maxMs: number; cause: string }[];
}

/** `nodeArgs`: extra node flags for the proxy (to try a V8 setting against the same run's default). */
export async function proxyStalls(frames: number, rate: number, nodeArgs: string[] = []): Promise<StallReport> {
  const dir = mkdtempSync(join(tmpdir(), 'talaria-acp-stalls-'));
  try {
    const alignFile = join(dir, 'align.json');
    // Both clocks read together, written at exit: maps profile time (monotonic µs) to stamps (ms).
    const preload =
      'data:text/javascript,' +
      encodeURIComponent(
        `import{writeFileSync}from"node:fs";const a={hrUs:Number(process.hrtime.bigint()/1000n),stamp:performance.timeOrigin+performance.now()};process.on("exit",()=>writeFileSync(${JSON.stringify(alignFile)},JSON.stringify(a)));`,
      );
    const rows: [number, number][] = [];
    await runProxyFlood({
      frames,
      rate,
      // As talaria.acp.paced: the proxy streams its warm-up turns first, and only the last turn is looked at.
      warmupTurns: PROXY_WARMUP_TURNS,
      nodeArgs: [...nodeArgs, '--import', preload, '--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=100'],
      onUpdate: (u) => {
        const t = stampOf(u);
        if (t !== undefined) rows.push([t, stampNow()]);
      },
    });
    const profFile = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!profFile) throw new Error('the proxy wrote no profile');
    const prof = JSON.parse(readFileSync(join(dir, profFile), 'utf8')) as CpuProfile;
    const align = JSON.parse(readFileSync(alignFile, 'utf8')) as { hrUs: number; stamp: number };
    return analyse(rows, prof, align);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function analyse(rows: [number, number][], prof: CpuProfile, align: { hrUs: number; stamp: number }): StallReport {
  const lat = rows.map(([t, at]) => at - t).sort((a, b) => a - b);
  const p99 = lat[Math.floor(lat.length * 0.99)] ?? NaN;
  const labels = causes(prof);
  // Sample i covers [times[i], times[i + 1]) in stamp ms.
  const times: number[] = [];
  let t = prof.startTime;
  for (const d of prof.timeDeltas) {
    t += d;
    times.push((t - align.hrUs) / 1000 + align.stamp);
  }
  const episodes: { from: number; to: number; frames: number; max: number }[] = [];
  for (const [stamp, at] of rows) {
    if (at - stamp < p99) continue;
    const last = episodes[episodes.length - 1];
    if (last && stamp <= last.to) {
      last.to = Math.max(last.to, at);
      last.frames++;
      last.max = Math.max(last.max, at - stamp);
    } else episodes.push({ from: stamp, to: at, frames: 1, max: at - stamp });
  }
  const total: Record<string, number> = {};
  const worst: StallReport['worst'] = [];
  const t0 = rows[0]?.[0] ?? 0;
  for (const e of episodes) {
    const mine: Record<string, number> = {};
    for (let i = lowerBound(times, e.from); i + 1 < times.length && times[i]! < e.to; i++) {
      const ms = Math.min(times[i + 1]!, e.to) - times[i]!;
      mine[labels[i]!] = (mine[labels[i]!] ?? 0) + ms;
      total[labels[i]!] = (total[labels[i]!] ?? 0) + ms;
    }
    const cause = Object.entries(mine).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'outside the profile';
    worst.push({ atMs: +(e.from - t0).toFixed(1), frames: e.frames, maxMs: +e.max.toFixed(2), cause });
  }
  worst.sort((a, b) => b.maxMs - a.maxMs);
  const round = (x: number) => +x.toFixed(2);
  return {
    frames: rows.length,
    p50Ms: round(lat[Math.floor(lat.length / 2)] ?? NaN),
    p99Ms: round(p99),
    maxMs: round(lat[lat.length - 1] ?? NaN),
    slowFrames: episodes.reduce((n, e) => n + e.frames, 0),
    episodes: episodes.length,
    causesMs: Object.fromEntries(
      Object.entries(total)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => [k, round(v)]),
    ),
    worst: worst.slice(0, 8),
  };
}

function lowerBound(xs: number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const frames = Number(process.argv[2] ?? 4_000);
  const rate = Number(process.argv[3] ?? 2_000);
  const runs = Number(process.argv[4] ?? 1);
  const flags = process.argv.slice(5);
  for (let i = 0; i < runs; i++) process.stdout.write(JSON.stringify(await proxyStalls(frames, rate, flags)) + '\n');
}
