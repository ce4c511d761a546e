/**
 * `talaria serve` under load (issue 10): a real server (startServer over a real harness, store
 * included) with the flood agent as a configured provider, `ws` clients on `/ws`, and the
 * server's own in-process subscriber as the baseline, both in the same run.
 *
 * Latency: each frame's send stamp (`update._meta.t`, the agent's clock domain = ours) is taken
 * from the session's frame tap; the hub's first sink maps every event seq to the stamp of the
 * frame that produced it and records its own (in-process) latency; each client records
 * receive − stamp for the same seqs. Gaps: a client's seqs after `synced` must be contiguous up
 * to the turn's end, with no `resync`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { createHarness } from '../src/harness/index.js';
import { currentEnv } from '../src/providers/locate.js';
import { connectServer, type WebSocketCtor } from '../src/server/client/index.js';
import { startServer, type RunningServer } from '../src/server/index.js';
import type { Frame } from '../src/protocol/types.js';
import { FLOOD_AGENT, LatencyRecorder, ROOT, floodArgs, stampOf, type FloodParams } from './flood-driver.js';
import { stampNow } from './flood-frames.js';
import { fullGc, hasGc, heapUsed } from './memory.js';
import { percentile } from './stats.js';
import { ensureFreshBuild } from './talaria-cli.js';
import type { Sample } from './types.js';

const TSX = import.meta.resolve('tsx');
const CLIENTS = fileURLToPath(new URL('./serve-clients.ts', import.meta.url));

export interface ServeWorld {
  server: RunningServer;
  sessionId: string;
  dir: string;
  close(): Promise<void>;
}

/** A server whose `flood` provider is the flood agent with these parameters; one session of it, created over HTTP. */
export async function floodServer(p: FloodParams): Promise<ServeWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'talaria-bench-serve-'));
  const home = join(dir, 'home');
  mkdirSync(home);
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      agents: { flood: { command: process.execPath, args: ['--import', TSX, FLOOD_AGENT, ...floodArgs(p)] } },
    }),
  );
  const env = currentEnv({ env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, TALARIA_HOME: home } });
  const harness = createHarness({ home, env });
  const server = await startServer({ harness, tokensFile: null, version: 'bench', webRoot: dir });
  const api = connectServer(server.url, undefined, { WebSocket: WebSocket as unknown as WebSocketCtor }).api;
  const { workspace } = await api.openWorkspace({ body: { path: dir } });
  const { snapshot } = await api.createSession({ params: { id: workspace.id }, body: { provider: 'flood' } });
  return {
    server,
    sessionId: snapshot.session.id,
    dir,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The clients' process (bench/serve-clients.ts): ready once all are synced; their records once all reached `endSeq`. */
class ClientsProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly ready: Promise<void>;
  private readonly report: Promise<ClientsReport>;

  constructor(w: ServeWorld, n: number) {
    this.child = spawn(
      process.execPath,
      ['--import', TSX, CLIENTS, w.server.origin, w.server.token, w.sessionId, String(n)],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let err = '';
    this.child.stderr.setEncoding('utf8').on('data', (s: string) => (err = (err + s).slice(-4096)));
    const lines = createInterface({ input: this.child.stdout });
    const exited = new Promise<never>((_, reject) =>
      this.child.once('exit', (code) => reject(new Error(`serve bench clients exited ${code}: ${err.trim()}`))),
    );
    exited.catch(() => undefined);
    let ready!: () => void;
    let report!: (r: ClientsReport) => void;
    this.ready = Promise.race([new Promise<void>((r) => (ready = r)), exited]);
    this.report = Promise.race([new Promise<ClientsReport>((r) => (report = r)), exited]);
    // Killed after an idle measure, nobody waits for a report: not an unhandled rejection.
    this.ready.catch(() => undefined);
    this.report.catch(() => undefined);
    lines.on('line', (line) => {
      const m = JSON.parse(line) as { ready?: true; clients?: ClientRecord[]; cpuUs?: number; gc?: [number, number][] };
      if (m.ready) ready();
      if (m.clients) report({ clients: m.clients.map((c) => ({ ...c, gc: m.gc ?? [] })), cpuUs: m.cpuUs ?? NaN });
    });
  }

  results(endSeq: number): Promise<ClientsReport> {
    this.child.stdin.write(JSON.stringify({ endSeq }) + '\n');
    return this.report;
  }
}

interface ClientRecord {
  seqs: number[];
  at: number[];
  gaps: number;
  resyncs: number;
  /** The GC pauses of this client's process ([start on the shared clock, ms]). */
  gc: [number, number][];
}

/**
 * N clients over several processes, as clients are separate browsers: in one process each client
 * parses every batch in turn, so the last one waits for all the others (that wait is the bench's,
 * not the server's). Each process times its own clients on the shared clock.
 */
class ClientsPool {
  readonly procs: ClientsProcess[];
  readonly ready: Promise<void>;
  constructor(w: ServeWorld, n: number, processes: number) {
    const k = Math.max(1, Math.min(processes, n));
    this.procs = Array.from({ length: k }, (_, i) => new ClientsProcess(w, Math.floor(n / k) + (i < n % k ? 1 : 0)));
    this.ready = Promise.all(this.procs.map((p) => p.ready)).then(() => undefined);
  }
  async results(endSeq: number): Promise<ClientsReport> {
    const rs = await Promise.all(this.procs.map((p) => p.results(endSeq)));
    return { clients: rs.flatMap((r) => r.clients), cpuUs: rs.reduce((a, r) => a + r.cpuUs, 0) };
  }
}

/** A GC pause overlapping [from, to] (shared clock, ms). */
const overlapsGc = (pauses: [number, number][], from: number, to: number) =>
  pauses.some(([at, ms]) => at <= to && at + ms >= from);

/**
 * Where the worst client's slowest 1% of the server → client leg (client receive − the in-process
 * subscriber's receive of the same event) fall: the share in the first tenth of the turn
 * (first-use compilation, socket buffers growing), the share whose leg overlaps a GC pause of the
 * server's or that client's process, and the leg's own p50/p99.
 */
function whereSlow(
  r: ClientRecord,
  leg: number[],
  from: number[],
  at: number[],
  serverGc: [number, number][],
  first: number,
  end: number,
): string {
  if (leg.length === 0) return 'no samples';
  const cut = percentile(leg, 99);
  const slow = leg.flatMap((l, i) => (l >= cut ? [i] : []));
  const early = slow.filter((i) => from[i]! < first + (end - first) / 10).length;
  const gc = slow.filter((i) => overlapsGc(serverGc, from[i]!, at[i]!) || overlapsGc(r.gc, from[i]!, at[i]!)).length;
  const allGc = leg.filter(
    (_, i) => overlapsGc(serverGc, from[i]!, at[i]!) || overlapsGc(r.gc, from[i]!, at[i]!),
  ).length;
  const pct = (x: number, of: number) => `${Math.round((100 * x) / of)}%`;
  const gcMs = (g: [number, number][]) => g.reduce((a, [, ms]) => a + ms, 0).toFixed(0);
  return (
    `server → worst client leg p50 ${percentile(leg, 50).toFixed(2)} ms, p99 ${cut.toFixed(2)} ms; its slowest 1% (${slow.length} events): ` +
    `${pct(early, slow.length)} in the first tenth of the turn, ${pct(gc, slow.length)} overlap a GC pause (all events: ${pct(allGc, leg.length)}; ` +
    `GC over the turn: server ${gcMs(serverGc)} ms, that client's process ${gcMs(r.gc)} ms)`
  );
}

interface ClientsReport {
  clients: ClientRecord[];
  /** The clients' processes' CPU time (user + system) over the turn, µs. */
  cpuUs: number;
}

export interface ServeFloodResult {
  frames: number;
  /** Frames/s as the in-process subscriber got them (first update event → turn end). */
  inprocFps: number;
  /** Frames/s to the slowest client (the same first event → its receipt of the turn end). */
  clientsFps: number;
  inprocP99Ms: number;
  clientsP99Ms: number;
  /**
   * The server's own share, p50/p99 over the turn's entry events: from the in-process subscriber's
   * receipt of an event to the moment its batch had been handed to every client's socket (a batch
   * sink subscribed after the clients runs after their writes). Client processes and the kernel
   * are not in it, so it moves much less with the machine's load than the end-to-end rows.
   */
  serverLegP50Ms: number;
  serverLegP99Ms: number;
  /**
   * The clients' own leg, per event: p99 of (client receive − in-process receipt of the same event),
   * worst client. Unlike "clients p99 − in-process p99" (two tails of two distributions), it pairs
   * each event with itself, so a noisy in-process tail does not move it.
   */
  clientLegP99Ms: number;
  /** Over all clients: seq holes after `synced`, and resync orders. */
  gaps: number;
  resyncs: number;
  /**
   * CPU time per frame (user + system, µs) of the server's process (harness, store, server: all
   * but the agent) over the turn and until the clients got it all, and of the clients' process:
   * the machine's load changes the rates, much less these.
   */
  serverCpuUsPerFrame: number;
  clientsCpuUsPerFrame: number;
  /** Where the slowest client samples fell (whereSlow). */
  where: string;
}

/** One flood turn through the server with `clients` `/ws` clients (0: the in-process subscriber only) spread over `processes` processes. */
export async function runServeFlood(p: FloodParams, clients: number, processes = 1): Promise<ServeFloodResult> {
  const w = await floodServer(p);
  const serverGc: [number, number][] = [];
  let timing = false;
  const gcObs = new PerformanceObserver((list) => {
    if (timing) for (const e of list.getEntries()) serverGc.push([performance.timeOrigin + e.startTime, e.duration]);
  });
  gcObs.observe({ entryTypes: ['gc'] });
  try {
    const ls = w.server.hub.get(w.sessionId);
    if (!ls) throw new Error('serve bench: the session is not live');
    const stamps = new Map<number, number>();
    /** When the in-process subscriber got each event: the start of the server → client leg. */
    const inprocAt = new Map<number, number>();
    const inproc = new LatencyRecorder(p.frames);
    let lastStamp: number | undefined;
    let first = 0;
    let endSeq = 0;
    let endAt = 0;
    const offFrames = ls.hs.session.subscribeFrames((f: Frame) => {
      const msg = f.msg as { method?: string; params?: { update?: unknown } };
      if (f.dir === 'agent->client' && msg.method === 'session/update')
        lastStamp = stampOf(msg.params?.update) ?? lastStamp;
    });
    const offSink = w.server.hub.subscribe(w.sessionId, (ev) => {
      if (ev.type === 'turn.ended') {
        endSeq = ev.seq;
        endAt = stampNow();
        return;
      }
      if (lastStamp === undefined || !ev.type.startsWith('entry.')) return;
      const now = stampNow();
      if (first === 0) first = now;
      stamps.set(ev.seq, lastStamp);
      inprocAt.set(ev.seq, now);
      inproc.record(lastStamp);
    });
    const proc = clients > 0 ? new ClientsPool(w, clients, processes) : undefined;
    await proc?.ready;
    const serverLeg: number[] = [];
    // A batch's seqs are contiguous: its first event's (the last `"seq":` of its JSON, the envelope's) and on.
    const offBatches = w.server.hub.subscribeBatches(w.sessionId, (b) => {
      const now = stampNow();
      const j = b.jsons[0];
      if (j === undefined) return;
      const first = Number(/^\d+/.exec(j.slice(j.lastIndexOf('"seq":') + 6))?.[0]);
      for (let i = 0; i < b.jsons.length; i++) {
        const h = inprocAt.get(first + i);
        if (h !== undefined) serverLeg.push(now - h);
      }
    });
    const cpu0 = process.cpuUsage();
    timing = true;
    await ls.hs.prompt('flood').result;
    offFrames();
    offSink();
    offBatches();
    const report = proc ? await proc.results(endSeq) : { clients: [], cpuUs: NaN };
    const cpu = process.cpuUsage(cpu0);
    const recs = report.clients;
    timing = false;
    // Each client's latency per event: receive − the stamp of the frame behind that seq.
    const lats = recs.map((r) => {
      const lat: number[] = [];
      const leg: number[] = [];
      const from: number[] = [];
      const at: number[] = [];
      r.seqs.forEach((seq, i) => {
        const t = stamps.get(seq);
        const h = inprocAt.get(seq);
        if (t === undefined || h === undefined) return;
        lat.push(r.at[i]! - t);
        leg.push(r.at[i]! - h);
        from.push(h);
        at.push(r.at[i]!);
      });
      return { lat, leg, from, at };
    });
    const p99s = lats.map((l) => percentile(l.lat, 99));
    const worst = p99s.indexOf(Math.max(...p99s));
    const slowest = Math.max(endAt, ...recs.map((r) => r.at.at(-1) ?? 0));
    return {
      frames: p.frames,
      inprocFps: (p.frames * 1000) / (endAt - first),
      clientsFps: recs.length ? (p.frames * 1000) / (slowest - first) : NaN,
      inprocP99Ms: inproc.summary().p99,
      clientsP99Ms: recs.length ? Math.max(...p99s) : NaN,
      serverLegP50Ms: serverLeg.length ? percentile(serverLeg, 50) : NaN,
      clientLegP99Ms: recs.length ? Math.max(...lats.map((l) => (l.leg.length ? percentile(l.leg, 99) : NaN))) : NaN,
      serverLegP99Ms: serverLeg.length ? percentile(serverLeg, 99) : NaN,
      gaps: recs.reduce((a, r) => a + r.gaps + ((r.seqs.at(-1) ?? 0) >= endSeq ? 0 : 1), 0),
      resyncs: recs.reduce((a, r) => a + r.resyncs, 0),
      serverCpuUsPerFrame: (cpu.user + cpu.system) / p.frames,
      clientsCpuUsPerFrame: report.cpuUs / p.frames,
      where:
        worst >= 0
          ? whereSlow(recs[worst]!, lats[worst]!.leg, lats[worst]!.from, lats[worst]!.at, serverGc, first, endAt)
          : 'no clients',
    };
  } finally {
    gcObs.disconnect();
    await w.close();
  }
}

/** Heap of this (server) process per idle attached client: N clients (another process) subscribed to an idle session. */
export async function runIdleClients(
  n: number,
): Promise<{ kbPerClient: number; clients: number; heapBefore: number; heapAfter: number; gc: boolean }> {
  const w = await floodServer({ frames: 1 });
  try {
    // One client first, so code compiled on first use is not billed to the measured ones.
    const warm = new ClientsProcess(w, 1);
    await warm.ready;
    fullGc();
    const before = heapUsed();
    const proc = new ClientsProcess(w, n);
    await proc.ready;
    fullGc();
    const after = heapUsed();
    if (w.server.connections() !== n + 1)
      throw new Error(`idle clients: ${w.server.connections()} connections, expected ${n + 1}`);
    warm.child.kill();
    proc.child.kill();
    return { kbPerClient: (after - before) / n / 1024, clients: n, heapBefore: before, heapAfter: after, gc: hasGc() };
  } finally {
    await w.close();
  }
}

/**
 * `talaria serve` until GET /api/health answers 200, against the CLI's start-up as talaria.cli
 * measures it (`talaria run --agent demo hi`: the harness, the store, an agent and a turn) and
 * `talaria --help` (which loads no command on purpose), in rotating rounds (bin/talaria.js, built).
 */
export async function runServeReady(rounds: number): Promise<Sample[]> {
  const note = await ensureFreshBuild(ROOT);
  const bin = join(ROOT, 'bin/talaria.js');
  const dir = mkdtempSync(join(tmpdir(), 'talaria-bench-ready-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TALARIA_HOME: join(dir, 'home'),
    TALARIA_DEMO_HOME: join(dir, 'demo'),
    TALARIA_DEMO_CHUNK_DELAY_MS: '0',
    NO_COLOR: '1',
  };
  const timed = async (args: string[]): Promise<number> => {
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const c = spawn(process.execPath, [bin, ...args], { cwd: dir, env, stdio: 'ignore' });
      c.once('error', reject);
      c.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`talaria ${args.join(' ')} exited ${code}`)),
      );
    });
    return performance.now() - t0;
  };
  const ready = async (): Promise<number> => {
    const t0 = performance.now();
    const c = spawn(process.execPath, [bin, 'serve', '--port', '0'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const origin = await new Promise<string>((resolve, reject) => {
        let out = '';
        c.stdout.setEncoding('utf8').on('data', (s: string) => {
          out += s;
          const m = /(http:\/\/127\.0\.0\.1:\d+)\/#token=/.exec(out);
          if (m) resolve(m[1]!);
        });
        c.once('exit', (code) => reject(new Error(`talaria serve exited ${code} before printing its link`)));
      });
      for (;;) {
        if (c.exitCode !== null) throw new Error(`talaria serve exited ${c.exitCode}`);
        const r = await fetch(`${origin}/api/health`).catch(() => undefined);
        if (r?.status === 200) return performance.now() - t0;
      }
    } finally {
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
    }
  };
  try {
    const samples: Sample[] = [];
    for (let i = 0; i < rounds; i++) {
      // Alternating order: the machine's swings cancel within a round.
      // A rotating order: the machine's swings cancel within a round.
      const steps: [string, () => Promise<number>][] = [
        ['helpMs', () => timed(['--help'])],
        ['runMs', () => timed(['run', '--agent', 'demo', 'hi'])],
        ['readyMs', ready],
      ];
      const values: Record<string, number> = {};
      for (let j = 0; j < steps.length; j++) {
        const [key, step] = steps[(i + j) % steps.length]!;
        values[key] = await step();
      }
      values['readyRatio'] = values['readyMs']! / values['runMs']!;
      values['helpRatio'] = values['readyMs']! / values['helpMs']!;
      samples.push(note ? { values, notes: [note] } : { values });
    }
    return samples;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
