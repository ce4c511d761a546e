/**
 * One agent process (a "generation" of its slot): the ACP client over it, and what the host
 * watches on it — the time of its last frame (stall watchdog), the requests and turns in
 * flight (idle reap, draining before a replacement) and permission asks waiting for a person.
 * (Frames for sessions not attached yet wait in the client's router.)
 */
import type { AcpClient } from '../session/client.js';
import type { Session } from '../session/session.js';
import type { ExitReason } from './events.js';
import { WorkLedger } from './ledger.js';

/**
 * A session with a prompt in flight (a SessionBinding): only what the watchdog reads, so the
 * process record sits below the bindings that point at it (binding.ts imports this file).
 */
export interface RunningTurn {
  readonly id: string;
  readonly session: Session;
}

export class Generation {
  client!: AcpClient;
  pid: number | null = null;
  /** Its start in ticks since boot (undefined without /proc): with `tag`, what names its process tree. */
  startTicks: number | undefined;
  /** Who had work in flight on it, and when (which processes a cancel may end: reaper.ts). */
  readonly ledger = new WorkLedger();
  readonly startedAt = Date.now();
  lastActivity = Date.now();
  /** In-flight host requests of any kind (setup, config, prompts). */
  busy = 0;
  /** Bindings with a prompt in flight on this process. */
  readonly running = new Set<RunningTurn>();
  /** Permission asks waiting for a person (the agent is legitimately silent meanwhile). */
  readonly asks = new Set<string>();
  /** Set before we close it on purpose; absent = it died on its own. */
  exitReason?: ExitReason;
  /** No new work: drain, then close with this reason. */
  retiring?: ExitReason;
  dead = false;
  /** Resolves once the process and its whole group are gone and agent.exited was emitted. */
  readonly gone: Promise<void>;
  markGone!: () => void;
  idleTimer?: NodeJS.Timeout;
  watchdog?: NodeJS.Timeout;
  /** When the watchdog cancelled the running turns (then it waits for any frame). */
  stallCancelledAt?: number;

  constructor(
    readonly n: number,
    /** The variables set explicitly at spawn: frozen for this process's life. */
    readonly env: Readonly<Record<string, string>>,
    /** The random tag its processes carry (never logged, never in an event). */
    readonly tag: string,
  ) {
    this.gone = new Promise((r) => (this.markGone = r));
  }

  get alive(): boolean {
    return !this.dead && this.exitReason === undefined;
  }

  get idle(): boolean {
    return this.busy === 0 && this.running.size === 0;
  }

  clearTimers(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.watchdog) clearTimeout(this.watchdog);
    this.idleTimer = undefined;
    this.watchdog = undefined;
  }
}
