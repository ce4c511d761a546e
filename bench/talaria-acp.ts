/**
 * `talaria acp` on the hot path: the same flood agent driven three ways, in the same run.
 *
 * - direct: this process is the core (`AcpClient`: transport, router, reducer, event bus) reading
 *   the flood agent's pipe. Nothing is stored.
 * - recorded: the same, plus the store's recorder on the frame and event taps (every frame into
 *   the SQLite wire log, every entry into the entries table), i.e. what `talaria` does with any
 *   session it runs. This is the fair baseline for the proxy, which records every frame.
 * - proxy: `talaria acp --agent-cmd "<flood agent>"` as a second process (harness: core + recorder,
 *   as "recorded", then each update forwarded to stdout as a JSON-RPC line), and this process, the
 *   editor, is the core without a store reading the proxy's stdout. So the proxy path does the
 *   recorded work, the forwarding, and a second core hop on the editor's side.
 *
 * Throughput ratios (proxy / direct and proxy / recorded, unpaced) and the p99 latency a frame
 * gains (paced, agent stamp → consumer), against each baseline. On a shared machine every figure
 * moves with the load: run `uptime` next to it.
 *
 *   npx tsx bench/talaria-acp.ts [frames] [pacedRate] [pacedFrames]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AcpClient } from '../src/session/client.js';
import {
  ROOT,
  cpuMs,
  floodArgs,
  floodResult,
  framesSentOf,
  FLOOD_AGENT,
  type FloodParams,
  type FloodResult,
} from './flood-driver.js';
import { runTalariaFlood, warmupTurns } from './talaria-flood.js';
import { runTalariaStoreFlood } from './talaria-store.js';
import { UpdateProbe } from './talaria-probe.js';

/** The command users run (built JavaScript when the checkout is built, as after `npm ci`). */
const BIN = fileURLToPath(new URL('../bin/talaria.js', import.meta.url));

/** CPU ms (user + system) of a process, from /proc (10 ms ticks); undefined off Linux. */
function procCpuMs(pid: number): number | undefined {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** ms the process's main thread waited for a CPU while runnable (/proc schedstat, ns); undefined off Linux. */
function procRunqueueMs(pid: number): number | undefined {
  try {
    const [, wait] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ');
    return Number(wait) / 1e6;
  } catch {
    return undefined;
  }
}

/** The child of this process with `word` among its arguments (env execs node in place, so the proxy is a direct child). */
function childPid(word: string): number | undefined {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').includes(word))
        return Number(d);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/**
 * The CPU a middle process (the proxy, the relay) spends on a turn, over the window the consumer's
 * own CPU is counted on: from the first update the consumer sees to the turn's result. Start-up,
 * the handshake and shutdown stay out, for every row alike. µs per frame; NaN when /proc cannot say.
 */
export class MiddleCpu {
  private pid: number | undefined;
  private from: number | undefined;
  private to: number | undefined;
  private waitFrom: number | undefined;
  private waitTo: number | undefined;
  constructor(private readonly word: string) {}
  /** Before the prompt: finding the process scans /proc, which must not delay the first frames. */
  readonly find = (): void => {
    this.pid = childPid(this.word);
  };
  /** At the first update. */
  readonly open = (): void => {
    this.from = this.pid === undefined ? undefined : procCpuMs(this.pid);
    this.waitFrom = this.pid === undefined ? undefined : procRunqueueMs(this.pid);
  };
  /** At the turn's result. */
  readonly close = (): void => {
    this.to = this.pid === undefined ? undefined : procCpuMs(this.pid);
    this.waitTo = this.pid === undefined ? undefined : procRunqueueMs(this.pid);
  };
  usPerFrame(frames: number): number {
    return this.from === undefined || this.to === undefined
      ? NaN
      : ((this.to - this.from) * 1000) / Math.max(1, frames);
  }
  /**
   * ms its main thread spent runnable but waiting for a CPU over the window: what the machine's
   * load (the other processes, other benches) cost it, which no change to Talaria removes.
   */
  runqueueMs(): number {
    return this.waitFrom === undefined || this.waitTo === undefined ? NaN : this.waitTo - this.waitFrom;
  }
}

export interface ProxyFloodResult extends FloodResult {
  /** CPU µs per frame of the `talaria acp` process over the turn (see MiddleCpu). */
  proxyCpuUsPerFrame: number;
  /** ms its main thread waited for a CPU over the turn (see MiddleCpu.runqueueMs). */
  proxyRunqueueMs: number;
}

/**
 * `nodeArgs`: extra node flags for the `talaria acp` process (e.g. `--cpu-prof` to profile it);
 * `onUpdate`: each update as the editor's core reads it (talaria-acp-stalls.ts keeps the stamps).
 */
export async function runProxyFlood(
  p: FloodParams & { nodeArgs?: string[]; onUpdate?: (u: unknown) => void; warmupTurns?: number },
): Promise<ProxyFloodResult> {
  const home = mkdtempSync(join(tmpdir(), 'talaria-bench-acp-'));
  const inner = [process.execPath, '--import', 'tsx', FLOOD_AGENT, ...floodArgs(p)].map((w) => `'${w}'`).join(' ');
  const probe = new UpdateProbe(p.frames, true, false);
  // As runTalariaFlood's `warmupTurns`: the probe and the CPU window see only the measured turn.
  const warmups = p.warmupTurns ?? 0;
  let probing = warmups === 0;
  const cpu = new MiddleCpu('acp');
  const client = await AcpClient.spawn(
    {
      command: '/usr/bin/env',
      args: [
        `TALARIA_HOME=${home}`,
        process.execPath,
        ...(p.nodeArgs ?? []),
        BIN,
        'acp',
        '--cwd',
        ROOT,
        '--agent-cmd',
        inner,
      ],
      cwd: ROOT,
    },
    {
      fs: false,
      terminal: false,
      hooks: {
        mapUpdate: (u) => {
          if (!probing) return u;
          p.onUpdate?.(u);
          return probe.mapUpdate(u);
        },
      },
    },
  );
  try {
    const session = await client.newSession({ cwd: ROOT });
    session.subscribe((e) => {
      if (probing) probe.onEvent(e);
    });
    if (warmups > 0) {
      await warmupTurns(session, warmups, 'proxy flood');
      probing = true;
    }
    cpu.find();
    const off = session.subscribe(() => {
      if (probe.seen === 0) return;
      off();
      cpu.open();
    });
    const result = await session.prompt('flood').result;
    const t1 = performance.now();
    cpu.close();
    if (result.error) throw new Error(`proxy flood: turn failed: ${result.error.code}: ${result.error.message}`);
    const r = floodResult(framesSentOf(result.response), probe.seen, probe.t0, t1, probe.rec, cpuMs() - probe.c0);
    return { ...r, proxyCpuUsPerFrame: cpu.usPerFrame(r.framesSeen), proxyRunqueueMs: cpu.runqueueMs() };
  } finally {
    await client.close();
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const frames = Number(process.argv[2] ?? 20_000);
  const rate = Number(process.argv[3] ?? 2_000);
  const paced = Number(process.argv[4] ?? 4_000);
  const direct = await runTalariaFlood({ frames });
  const recorded = await runTalariaStoreFlood({ frames });
  const proxy = await runProxyFlood({ frames });
  const directPaced = await runTalariaFlood({ frames: paced, rate });
  const recordedPaced = await runTalariaStoreFlood({ frames: paced, rate });
  const proxyPaced = await runProxyFlood({ frames: paced, rate });
  const ms = (x: number) => +x.toFixed(3);
  const out = {
    frames,
    throughput: {
      directFps: Math.round(direct.framesPerSec),
      recordedFps: Math.round(recorded.framesPerSec),
      proxyFps: Math.round(proxy.framesPerSec),
      ratio: +(proxy.framesPerSec / direct.framesPerSec).toFixed(3),
      ratioVsRecorded: +(proxy.framesPerSec / recorded.framesPerSec).toFixed(3),
      lost: proxy.framesSent - proxy.framesSeen,
    },
    // CPU µs per frame (load-independent, unlike the rates): the consumer process of each run, and
    // for the proxy also the `talaria acp` process (10 ms ticks over the turn).
    cpuUsPerFrame: {
      direct: +(1e6 / direct.framesPerCpuSec).toFixed(1),
      recorded: +(1e6 / recorded.framesPerCpuSec).toFixed(1),
      proxyEditor: +(1e6 / proxy.framesPerCpuSec).toFixed(1),
      proxyProcess: +proxy.proxyCpuUsPerFrame.toFixed(1),
    },
    pacedRate: rate,
    latencyP99Ms: {
      direct: ms(directPaced.latency.p99),
      recorded: ms(recordedPaced.latency.p99),
      proxy: ms(proxyPaced.latency.p99),
      added: ms(proxyPaced.latency.p99 - directPaced.latency.p99),
      addedVsRecorded: ms(proxyPaced.latency.p99 - recordedPaced.latency.p99),
    },
    latencyP50Ms: {
      direct: ms(directPaced.latency.p50),
      recorded: ms(recordedPaced.latency.p50),
      proxy: ms(proxyPaced.latency.p50),
    },
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}
