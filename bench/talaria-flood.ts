/**
 * The Talaria core consuming the flood: `AcpClient.spawn` → `newSession` → `prompt`, with a
 * subscriber on the session's events. Same agent, same frames, same handshake as floor.ts and
 * sdk-baseline.ts; throughput counts from the first update seen by the subscriber to the turn's
 * result. Optionally a frame/event sink (the store's recorder) rides along on both hooks.
 */
import { pathToFileURL } from 'node:url';
import { AcpClient } from '../src/session/client.js';
import type { SessionEvent } from '../src/session/events.js';
import type { SessionHooks } from '../src/session/hooks.js';
import type { Session } from '../src/session/session.js';
import type { Frame } from '../src/protocol/types.js';
import type { Thread } from '../src/thread/types.js';
import {
  FLOOD_AGENT,
  ROOT,
  cpuMs,
  floodArgs,
  floodResult,
  framesSentOf,
  type FloodParams,
  type FloodResult,
} from './flood-driver.js';
import { UpdateProbe } from './talaria-probe.js';

/** What a "talaria + store" run adds on the hot path: the store recorder's two hooks. */
export interface Sink {
  onFrame(frame: Frame): void;
  onEvent(event: SessionEvent): void;
}

export interface TalariaFloodParams extends FloodParams {
  /** Rides along from the spawn on: every frame of the session (its handshake included), and every event. */
  sink?: Sink;
  /** Session hooks (the smoke test drops updates with `mapUpdate` to prove losses are counted). */
  hooks?: SessionHooks;
  /** Return the session's thread (the smoke test compares it with an offline reduction). */
  keepThread?: boolean;
  /** Also time router → subscriber per update (paced runs). */
  tapLatency?: boolean;
  /** Run the agent behind this command prefix (a relay process: bench/relay.ts). */
  via?: readonly string[];
  /** Called once the session is open, before the prompt. */
  onReady?: () => void;
  /** Called once, when the first update is seen (where the consumer's CPU window opens). */
  onFirstUpdate?: () => void;
  /** Called once the turn's result is in (where that window closes). */
  onTurnEnd?: () => void;
  /**
   * First this many turns of the same frames that are not measured, in the same session and
   * processes: what is then measured is a chain that has run turns already (a relay's or `talaria
   * acp`'s code compiled), as the bench's own process always is.
   */
  warmupTurns?: number;
}

export interface TalariaFloodResult extends FloodResult {
  /** Entries in the session's thread after the turn. */
  entries: number;
  thread?: Thread;
  /** Router → subscriber per update (ms), when asked for. */
  tap?: { p50: number; p99: number; max: number };
}

export function floodCommand(p: FloodParams, extra: string[] = []): { command: string; args: string[]; cwd: string } {
  return { command: process.execPath, args: ['--import', 'tsx', FLOOD_AGENT, ...floodArgs(p), ...extra], cwd: ROOT };
}

/** The unmeasured first turns of `warmupTurns` (also runProxyFlood's): the same flood, a failure said. */
export async function warmupTurns(session: Session, turns: number, who: string): Promise<void> {
  for (let i = 0; i < turns; i++) {
    const warm = await session.prompt('flood').result;
    if (warm.error) throw new Error(`${who}: warm-up turn failed: ${warm.error.code}: ${warm.error.message}`);
  }
}

export async function runTalariaFlood(p: TalariaFloodParams): Promise<TalariaFloodResult> {
  const probe = new UpdateProbe(p.frames, true, p.tapLatency ?? false);
  const sink = p.sink;
  // Off during the warm-up turns: the probe sees only the measured one.
  const warmups = p.warmupTurns ?? 0;
  let probing = warmups === 0;
  // The probe reads each update through the session hook (as the baselines read each frame);
  // a test's own mapUpdate runs after it.
  const inner = p.hooks?.mapUpdate;
  // Without warm-up turns the hook is the probe's own, as before: no extra call per update.
  const mark: typeof probe.mapUpdate = warmups > 0 ? (u) => (probing ? probe.mapUpdate(u) : u) : probe.mapUpdate;
  const hooks: SessionHooks = { ...p.hooks, mapUpdate: inner ? (u) => inner(mark(u)) : mark };
  // The session's own frames, as the harness records them (one road: transport → session → recorder).
  const onSession = sink ? (s: Session) => void s.subscribeFrames((f: Frame) => sink.onFrame(f)) : undefined;
  const direct = floodCommand(p);
  const command = p.via?.length
    ? { command: p.via[0]!, args: [...p.via.slice(1), direct.command, ...direct.args], cwd: direct.cwd }
    : direct;
  const client = await AcpClient.spawn(command, {
    fs: false,
    terminal: false,
    hooks,
    ...(onSession ? { onSession } : {}),
  });
  try {
    const session = await client.newSession({ cwd: ROOT });
    session.subscribe((e) => {
      if (probing) probe.onEvent(e);
      sink?.onEvent(e);
    });
    if (warmups > 0) {
      await warmupTurns(session, warmups, 'talaria flood');
      probing = true;
    }
    p.onReady?.();
    const first = p.onFirstUpdate;
    if (first) {
      const off = session.subscribe(() => {
        if (probe.seen === 0) return;
        off();
        first();
      });
    }
    const result = await session.prompt('flood').result;
    const t1 = performance.now();
    const cpu = cpuMs() - probe.c0;
    p.onTurnEnd?.();
    if (result.error) throw new Error(`talaria flood: turn failed: ${result.error.code}: ${result.error.message}`);
    const r = floodResult(framesSentOf(result.response), probe.seen, probe.t0, t1, probe.rec, cpu);
    const out: TalariaFloodResult = { ...r, entries: session.thread.entries.length };
    if (p.keepThread) out.thread = session.thread;
    if (probe.tapRec) out.tap = probe.tapRec.summary();
    return out;
  } finally {
    await client.close();
  }
}

// Standalone (profiling): `node --cpu-prof --import tsx bench/talaria-flood.ts [frames] [rate]`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const frames = Number(process.argv[2] ?? 100_000);
  const rate = Number(process.argv[3] ?? 0);
  const r = await runTalariaFlood({ frames, rate });
  process.stdout.write(JSON.stringify(r) + '\n');
}
