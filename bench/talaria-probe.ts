/**
 * How the Talaria cases see frames. An `UpdateProbe` marks each `session/update` as it enters the
 * session — through the session hook `mapUpdate` (the same per-update read of the stamp the
 * floor and SDK baselines do), or through the raw tap `onFrame` where a case needs the agent's
 * answers too — and a subscriber on the session's events settles it. Delivery is synchronous
 * (transport → router → reducer → bus → subscriber inside the transport's handling of one line),
 * so the first thread event after the mark belongs to that update. An update that produced no
 * event is counted lost: the next mark replaces it, and the mark is cleared at the end of the
 * synchronous batch (a microtask), before anything asynchronous (a turn's end settling tool
 * calls) can emit events that would be credited to it.
 */
import type { Frame } from '../src/protocol/types.js';
import type { SessionEvent } from '../src/session/events.js';
import { LatencyRecorder, cpuMs, stampOf } from './flood-driver.js';
import { stampNow } from './flood-frames.js';

/** Thread events a `session/update` can cause (turn.*, session.*, catalog.* come from elsewhere). */
const UPDATE_EVENTS: ReadonlySet<string> = new Set([
  'entry.added',
  'entry.updated',
  'plan.updated',
  'commands.updated',
  'mode.updated',
  'config.updated',
  'info.updated',
  'context.updated',
]);

type Update = { sessionUpdate: string; [k: string]: unknown };

export class UpdateProbe {
  /** Updates whose thread event reached a subscriber. */
  seen = 0;
  /** performance.now() and CPU ms (`cpuMs`) at the first seen update (throughput counts from here). */
  t0 = 0;
  c0 = 0;
  /** `_meta.framesSent` of the last answer that carried one (only with `onFrame`). */
  framesSent: number | undefined;
  readonly rec: LatencyRecorder | undefined;
  /** Optional: from the mark to the subscriber, i.e. Talaria's own work on one update. */
  readonly tapRec: LatencyRecorder | undefined;
  private pending = false;
  private stamp: number | undefined;
  private markedAt = 0;
  private clearQueued = false;
  private readonly clear = (): void => {
    this.clearQueued = false;
    this.pending = false;
  };

  constructor(expected: number, latency = true, tapLatency = false) {
    this.rec = latency ? new LatencyRecorder(expected) : undefined;
    this.tapRec = tapLatency ? new LatencyRecorder(expected) : undefined;
  }

  private mark(update: unknown): void {
    this.pending = true;
    if (this.rec) this.stamp = stampOf(update);
    if (this.tapRec) this.markedAt = stampNow();
    if (!this.clearQueued) {
      this.clearQueued = true;
      queueMicrotask(this.clear);
    }
  }

  /** For `SessionHooks.mapUpdate` (passes the update through unchanged). */
  readonly mapUpdate = (u: Update): Update => {
    this.mark(u);
    return u;
  };

  /** For `ClientOptions.onFrame`, when the agent's own count (`_meta.framesSent`) is needed. */
  readonly onFrame = (f: Frame): void => {
    if (f.dir !== 'agent->client') return;
    const msg = f.msg as { method?: string; params?: { update?: unknown }; result?: { _meta?: { framesSent?: unknown } } };
    if (msg.method === 'session/update') return this.mark(msg.params?.update);
    this.pending = false; // events this frame causes are not an update's
    if (msg.method === undefined) {
      const n = msg.result?._meta?.framesSent;
      if (typeof n === 'number') this.framesSent = n;
    }
  };

  /** For `session.subscribe`. */
  readonly onEvent = (e: SessionEvent): void => {
    if (!this.pending || !UPDATE_EVENTS.has(e.type)) return;
    this.pending = false;
    if (this.seen++ === 0) {
      this.t0 = performance.now();
      this.c0 = cpuMs();
    }
    this.rec?.record(this.stamp);
    this.tapRec?.record(this.markedAt);
  };
}
