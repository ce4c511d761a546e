/**
 * One agent process (a "generation" of its slot): the ACP client over it, and what the host
 * watches on it — the time of its last frame (stall watchdog), the requests and turns in
 * flight (idle reap, draining before a replacement), permission asks waiting for a person, and
 * `session/update`s for session ids not registered yet (agents send them before the
 * `session/new` response, or between the response and our registration).
 */
import type { AcpClient } from '../session/client.js';
import type { Frame } from '../protocol/types.js';
import type { SessionBinding } from './binding.js';
import type { ExitReason } from './events.js';
import { WorkLedger } from './reaper.js';

type Update = { sessionUpdate: string; [k: string]: unknown };

const EARLY_PER_SESSION = 1_000;
const EARLY_SESSIONS = 64;

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
  readonly running = new Set<SessionBinding>();
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
  private readonly early = new Map<string, Update[]>();
  private readonly ignored = new Set<string>();

  constructor(
    readonly n: number,
    /** The variables set explicitly at spawn: frozen for this process's life. */
    readonly env: Readonly<Record<string, string>>,
    /** The random tag its processes carry (never logged, never in an event). */
    readonly tag: string,
  ) {
    this.gone = new Promise((r) => (this.markGone = r));
  }

  /** The raw frame tap (before the client routes the frame). */
  tap(frame: Frame): void {
    if (frame.dir !== 'agent->client') return;
    this.lastActivity = Date.now();
    const msg = frame.msg;
    if (msg.method !== 'session/update' || msg.id !== undefined) return;
    const params = msg.params as { sessionId?: unknown; update?: unknown } | undefined;
    const sid = params?.sessionId;
    const update = params?.update as Update | undefined;
    if (typeof sid !== 'string' || !update || typeof update.sessionUpdate !== 'string') return;
    if (this.client?.sessions.has(sid) || this.ignored.has(sid)) return;
    let list = this.early.get(sid);
    if (!list) {
      if (this.early.size >= EARLY_SESSIONS) this.early.delete(this.early.keys().next().value!);
      this.early.set(sid, (list = []));
    }
    if (list.length < EARLY_PER_SESSION) list.push(update);
  }

  /** Updates that arrived for `sessionId` before it was registered. */
  takeEarly(sessionId: string): Update[] {
    const list = this.early.get(sessionId) ?? [];
    this.early.delete(sessionId);
    return list;
  }

  /** A session id that must never be routed (Hermes' stray resume sessions). */
  ignore(sessionId: string): void {
    this.ignored.add(sessionId);
    this.early.delete(sessionId);
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
