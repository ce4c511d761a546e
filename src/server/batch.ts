/**
 * A session's events batched per task (what one callback, e.g. one chunk read off the agent's pipe,
 * produced) for the `/ws` clients. Why: one socket write per event per client was most of the
 * server's CPU under a flood (the kernel call, the frame header, the UTF-8 copy, each ×clients).
 * Here each event is serialized once, each batch's `events` message is built once and the same
 * bytes go to every subscriber, in one write each.
 *
 * A batch goes in a microtask, as soon as the task that made it ends, not in a setImmediate: the
 * recorder and the event log commit to SQLite in setImmediates scheduled earlier in the same task
 * (a frame is recorded before its event is emitted), so a setImmediate here made every client wait
 * for both transactions (milliseconds under load) while the in-process subscribers did not. Events
 * may reach a client before their commit: event-log.ts's RESTART_GAP covers a crash in between.
 */
import type { StreamEvent } from './contract/index.js';

export interface EventBatch {
  readonly sessionId: string;
  /** Each event's JSON, in seq order. */
  readonly jsons: readonly string[];
  /** The size of each of them (ASCII: characters are bytes). */
  readonly sizes: readonly number[];
  /** Their sum. */
  readonly bytes: number;
  /** The last event is a `session.live` reset (a snapshot follows it). */
  readonly live: boolean;
  /** The seq of its last event (a reader that falls behind resumes after it from the log). */
  readonly lastSeq: number;
  /** The whole `events` message: built on first use, then the same bytes for every subscriber. */
  frame(): Buffer;
}

export type BatchSink = (b: EventBatch) => void;

/**
 * A batch goes out once it holds this many bytes or its first event waited this long, not only
 * at the end of the task: an agent's backlog read in one task would otherwise hold
 * every client back until all of it was processed (the in-process subscribers see each event at
 * once). Still one write for tens to hundreds of events.
 */
export const BATCH_BYTES = 64 * 1024;
export const BATCH_MS = 1;

const NON_ASCII = /[\u0080-\uffff]/g;

/**
 * JSON with every non-ASCII character as a `\uXXXX` escape (the same value once parsed). Why: one
 * such character makes a whole decoded frame a two-byte string, which every client then decodes
 * and parses several times slower; the server escapes once for all of them.
 */
export function asciiJson(value: unknown): string {
  const json = JSON.stringify(value);
  NON_ASCII.lastIndex = 0;
  return NON_ASCII.test(json)
    ? json.replace(NON_ASCII, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
    : json;
}

/** One `events` message out of events already serialized by asciiJson (so latin1 is their UTF-8). */
export function eventsFrame(sessionId: string, jsons: readonly string[]): Buffer {
  return Buffer.from(`{"type":"events","sessionId":${asciiJson(sessionId)},"events":[${jsons.join(',')}]}`, 'latin1');
}

interface Pending {
  /** performance.now() at its first event. */
  since: number;
  jsons: string[];
  sizes: number[];
  bytes: number;
  live: boolean;
  lastSeq: number;
}

export class EventBatcher {
  private readonly sinks = new Map<string, Set<BatchSink>>();
  private readonly pending = new Map<string, Pending>();
  private scheduled = false;

  /** `now`: a millisecond clock (tests pass their own). */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Whatever is pending goes to the earlier subscribers first: the new one gets only later events. */
  subscribe(sessionId: string, sink: BatchSink): () => void {
    this.flush(sessionId);
    let set = this.sinks.get(sessionId);
    if (!set) this.sinks.set(sessionId, (set = new Set()));
    set.add(sink);
    return () => {
      set.delete(sink);
      if (set.size === 0 && this.sinks.get(sessionId) === set) {
        this.sinks.delete(sessionId);
        this.pending.delete(sessionId);
      }
    };
  }

  /** Queues an event for its session's next batch (nothing when nobody listens). */
  add(ev: StreamEvent): void {
    if (!this.sinks.has(ev.sessionId)) return;
    let p = this.pending.get(ev.sessionId);
    if (!p)
      this.pending.set(
        ev.sessionId,
        (p = { since: this.now(), jsons: [], sizes: [], bytes: 0, live: false, lastSeq: ev.seq }),
      );
    const json = asciiJson(ev);
    const size = json.length;
    p.jsons.push(json);
    p.sizes.push(size);
    p.bytes += size;
    p.live = ev.type === 'session.live';
    p.lastSeq = ev.seq;
    if (p.bytes >= BATCH_BYTES || this.now() - p.since >= BATCH_MS) return this.flush(ev.sessionId);
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.flushAll());
    }
  }

  /** Delivers a session's pending batch now. */
  flush(sessionId: string): void {
    const p = this.pending.get(sessionId);
    if (!p) return;
    this.pending.delete(sessionId);
    const set = this.sinks.get(sessionId);
    if (!set) return;
    let frame: Buffer | undefined;
    const batch: EventBatch = {
      sessionId,
      jsons: p.jsons,
      sizes: p.sizes,
      bytes: p.bytes,
      live: p.live,
      lastSeq: p.lastSeq,
      frame: () => (frame ??= eventsFrame(sessionId, p.jsons)),
    };
    // A copy: a sink may unsubscribe itself.
    for (const sink of [...set]) sink(batch);
  }

  private flushAll(): void {
    this.scheduled = false;
    for (const id of [...this.pending.keys()]) this.flush(id);
  }
}
