/**
 * How the Talaria cases see frames. An `UpdateProbe` marks each `session/update` as it enters the
 * session — through the session hook `mapUpdate` (the same per-update read of the stamp the
 * floor and SDK baselines do), or through the raw tap `onFrame` where a case needs the agent's
 * answers too — and a subscriber on the session's events settles it. Delivery is synchronous
 * within a read (transport → router → reducer → bus → subscriber, the text chunks of one message
 * folded into one event by the end of the read), so the marks an event settles are the oldest
 * open ones: `chunks` of them, or one. A mark still open when the read's synchronous work is
 * done (a microtask) is cleared and counted lost, before anything asynchronous (a turn's end
 * settling tool calls) can emit events that would be credited to it.
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
  /**
   * Updates marked and not yet settled, oldest first: Talaria folds the text chunks of one read
   * into one event, so an event may settle several marks. Marks from `mapUpdate` share one queue
   * (the hook does not say which session); marks from `onFrame` are queued per session, as a
   * session's events settle only its own updates.
   */
  private readonly marks = new Marks();
  private readonly bySession = new Map<string, Marks>();
  private clearQueued = false;
  private readonly clear = (): void => {
    this.clearQueued = false;
    this.marks.drop();
    for (const m of this.bySession.values()) m.drop();
  };

  constructor(expected: number, latency = true, tapLatency = false) {
    this.rec = latency ? new LatencyRecorder(expected) : undefined;
    this.tapRec = tapLatency ? new LatencyRecorder(expected) : undefined;
  }

  private mark(update: unknown, into: Marks): void {
    into.push(this.rec ? stampOf(update) : undefined, this.tapRec ? stampNow() : 0);
    if (!this.clearQueued) {
      this.clearQueued = true;
      queueMicrotask(this.clear);
    }
  }

  /** For `SessionHooks.mapUpdate` (passes the update through unchanged). */
  readonly mapUpdate = (u: Update): Update => {
    this.mark(u, this.marks);
    return u;
  };

  /** For `ClientOptions.onFrame`, when the agent's own count (`_meta.framesSent`) is needed. */
  readonly onFrame = (f: Frame): void => {
    if (f.dir !== 'agent->client') return;
    const msg = f.msg as {
      method?: string;
      params?: { sessionId?: unknown; update?: unknown };
      result?: { _meta?: { framesSent?: unknown } };
    };
    if (msg.method === 'session/update') {
      const sid = String(msg.params?.sessionId);
      let q = this.bySession.get(sid);
      if (q === undefined) this.bySession.set(sid, (q = new Marks()));
      return this.mark(msg.params?.update, q);
    }
    if (msg.method === undefined) {
      const n = msg.result?._meta?.framesSent;
      if (typeof n === 'number') this.framesSent = n;
    }
  };

  /**
   * For `session.subscribe`. An event settles the oldest `chunks` marks (1 unless Talaria folded
   * several text chunks into it). A mark no event settles by the end of its read's synchronous
   * work is cleared: that update is unseen (lost).
   */
  readonly onEvent = (e: SessionEvent): void => {
    if (!UPDATE_EVENTS.has(e.type)) return;
    const q = this.bySession.size === 0 ? this.marks : (this.bySession.get(e.sessionId) ?? this.marks);
    const open = q.marks - q.head;
    if (open === 0) return;
    const n = Math.min((e as { chunks?: number }).chunks ?? 1, open);
    if (this.seen === 0) {
      this.t0 = performance.now();
      this.c0 = cpuMs();
    }
    this.seen += n;
    const end = q.head + n;
    for (let i = q.head; i < end; i++) {
      this.rec?.record(q.stamps[i]);
      this.tapRec?.record(q.markedAts[i]!);
    }
    if (end === q.marks) q.drop();
    else q.head = end;
  };
}

class Marks {
  marks = 0;
  head = 0;
  readonly stamps: (number | undefined)[] = [];
  readonly markedAts: number[] = [];

  push(stamp: number | undefined, markedAt: number): void {
    this.marks++;
    this.stamps.push(stamp);
    this.markedAts.push(markedAt);
  }

  drop(): void {
    this.marks = 0;
    this.head = 0;
    this.stamps.length = 0;
    this.markedAts.length = 0;
  }
}
