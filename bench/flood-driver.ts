/**
 * What every flood consumer shares: spawning the flood agent on real pipes, recording per-frame
 * latency from the stamps, and turning a run into a Sample. A Talaria consumer plugs in here the
 * same way floor.ts and sdk-baseline.ts do: spawn with `spawnFlood`, drive one turn, count the
 * frames it saw, record `stampOf(update)` latencies, return a `FloodResult`.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { stampNow } from './flood-frames.js';
import { latencySummary } from './stats.js';
import type { Sample } from './types.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const FLOOD_AGENT = fileURLToPath(new URL('./flood-agent.ts', import.meta.url));

export interface FloodParams {
  frames: number;
  /** Frames/s; 0 (default) = as fast as the pipe takes them. */
  rate?: number;
  chunkBytes?: number;
  seed?: number;
}

export type AgentChild = ChildProcessByStdio<Writable, Readable, Readable> & { stderrTail: () => string };

/** Spawn any agent command on pipes, keeping the last few KB of its stderr for error messages. */
export function spawnAgent(command: readonly string[], cwd = ROOT, env: NodeJS.ProcessEnv = process.env): AgentChild {
  const [cmd, ...args] = command;
  if (!cmd) throw new Error('empty agent command');
  const child = spawn(cmd, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let tail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s: string) => {
    tail = (tail + s).slice(-4096);
  });
  child.stdin.on('error', () => {}); // EPIPE when the agent dies first: the exit is reported instead
  return Object.assign(child, { stderrTail: () => tail });
}

export function floodArgs(p: FloodParams): string[] {
  const a = ['--frames', String(p.frames)];
  if (p.rate) a.push('--rate', String(p.rate));
  if (p.chunkBytes) a.push('--chunk-bytes', String(p.chunkBytes));
  if (p.seed !== undefined) a.push('--seed', String(p.seed));
  return a;
}

export function spawnFlood(p: FloodParams): AgentChild {
  return spawnAgent([process.execPath, '--import', 'tsx', FLOOD_AGENT, ...floodArgs(p)]);
}

/** Close stdin and wait for the agent to exit; kill it if it lingers. */
export async function stopAgent(child: AgentChild, graceMs = 2000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** The stamp of an update (`update._meta.t`), or undefined when absent. */
export function stampOf(update: unknown): number | undefined {
  const meta = (update as { _meta?: { t?: unknown } } | null | undefined)?._meta;
  const t = meta?.t;
  return typeof t === 'number' ? t : undefined;
}

/** Per-frame latency (ms) = receive time − stamp, in the shared clock domain. */
export class LatencyRecorder {
  private buf: Float64Array;
  count = 0;
  unstamped = 0;
  constructor(expected: number) {
    this.buf = new Float64Array(Math.max(16, expected));
  }
  record(stamp: number | undefined): void {
    if (stamp === undefined) {
      this.unstamped++;
      return;
    }
    if (this.count === this.buf.length) {
      const bigger = new Float64Array(this.buf.length * 2);
      bigger.set(this.buf);
      this.buf = bigger;
    }
    this.buf[this.count++] = stampNow() - stamp;
  }
  summary(): { p50: number; p99: number; max: number } {
    return latencySummary(this.buf.subarray(0, this.count));
  }
}

/** This process's CPU time (user + system, all threads) in ms. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export interface FloodResult {
  framesSent: number;
  framesSeen: number;
  seconds: number;
  framesPerSec: number;
  /**
   * Frames per second of the consumer's own CPU time over the same interval. The consumer is the
   * bottleneck by construction, so on an idle machine this equals `framesPerSec`; when other
   * processes take the cores it does not count the time spent waiting for one.
   */
  framesPerCpuSec: number;
  latency: { p50: number; p99: number; max: number };
  unstamped: number;
}

/**
 * Throughput counts from the first frame seen to the turn's end (excludes spawn and set-up);
 * `cpu` is the consumer's CPU ms over that interval (see `cpuMs`), when measured.
 */
export function floodResult(
  sent: number,
  seen: number,
  t0: number,
  t1: number,
  rec?: LatencyRecorder,
  cpu?: number,
): FloodResult {
  const seconds = Math.max(1e-9, (t1 - t0) / 1000);
  return {
    framesSent: sent,
    framesSeen: seen,
    seconds,
    framesPerSec: seen / seconds,
    framesPerCpuSec: cpu === undefined ? NaN : seen / Math.max(1e-9, cpu / 1000),
    latency: rec ? rec.summary() : { p50: NaN, p99: NaN, max: NaN },
    unstamped: rec ? rec.unstamped : 0,
  };
}

export function floodSample(r: FloodResult): Sample {
  const notes: string[] = [];
  if (r.framesSeen !== r.framesSent) notes.push(`saw ${r.framesSeen} of ${r.framesSent} frames`);
  if (r.unstamped) notes.push(`${r.unstamped} frames arrived without a stamp`);
  return {
    values: {
      framesPerSec: r.framesPerSec,
      framesPerCpuSec: r.framesPerCpuSec,
      framesSent: r.framesSent,
      framesSeen: r.framesSeen,
      lost: r.framesSent - r.framesSeen,
      latP50Ms: r.latency.p50,
      latP99Ms: r.latency.p99,
      latMaxMs: r.latency.max,
    },
    notes,
  };
}

/** Read `_meta.framesSent` from a prompt response (the flood agent reports what it wrote). */
export function framesSentOf(result: unknown): number {
  const n = (result as { _meta?: { framesSent?: unknown } } | null | undefined)?._meta?.framesSent;
  if (typeof n !== 'number') throw new Error('prompt response lacks _meta.framesSent');
  return n;
}

/** Reject when the agent exits before `done` settles (with its stderr tail). */
export function exitGuard(child: AgentChild, what: string): Promise<never> {
  return new Promise((_, reject) => {
    child.once('exit', (code, signal) => {
      const tail = child.stderrTail().trim();
      reject(
        new Error(
          `${what}: agent exited (code ${code}, signal ${signal}) before the turn ended${tail ? `\n${tail}` : ''}`,
        ),
      );
    });
  });
}

/** The producer's own rate into /dev/null (`flood-agent --self-test`): must far exceed the floor. */
export async function runProducerSelfTest(frames: number): Promise<{ framesPerSec: number; buildMs: number }> {
  const child = spawnAgent([
    process.execPath,
    '--import',
    'tsx',
    FLOOD_AGENT,
    '--self-test',
    '--frames',
    String(frames),
  ]);
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (s: string) => (out += s));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`flood self-test exited ${code}: ${child.stderrTail()}`);
  const r = JSON.parse(out) as { framesPerSec: number; buildMs: number };
  return { framesPerSec: r.framesPerSec, buildMs: r.buildMs };
}
