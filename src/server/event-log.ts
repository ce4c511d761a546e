/**
 * Each session's event stream with per-session sequence numbers, appended to the store.
 *
 * Why persist the bus events (not derive them from frames): what a client draws is the stream
 * AFTER Talaria's fixes (quirk hooks, settlement, notices, permission decisions), so resuming
 * must replay exactly that stream, across a server restart too. Seqs are assigned in memory at
 * emit time (so a snapshot of the live thread is exactly "the state after seq M"), fanned out at
 * once, and committed in one transaction per event-loop tick (like the recorder).
 *
 * Seqs are 1, 2, 3… with no holes, except one jump after a server restart (RESTART_GAP), always
 * at a reset. A `session.live` event marks a reset: the agent session was (re)attached and its history was
 * rebuilt outside the stream, so a `since` older than it is answered with a snapshot.
 */
import type { Store, StoredEvent } from '../store/index.js';
import type { StreamEvent, StreamEventName } from './contract/index.js';

/**
 * Seqs a new server process gives a session start this far past the committed ones: events sent
 * but not committed before a crash (at most a tick's worth) fall in the gap, so a client's
 * `since` from that lost tail is recognised and answered with a snapshot, never with other events.
 */
export const RESTART_GAP = 1_000_000;

/**
 * A prompt is on disk twice already (the wire log, the thread); the events that carry it again
 * (`turn.started`'s prompt, the user message's `entry.added`) are left out of the log when they
 * are larger than this (a 30 MB prompt made them two more copies): the row says so, and a resume
 * across it gets a snapshot, as for any range the log cannot answer exactly. Other events (a
 * large tool output) are kept whole.
 */
export const MAX_LOGGED_EVENT_BYTES = 256 * 1024;
const OMITTED = '{"_talariaOmitted":';

function carriesPrompt(type: string, body: Record<string, unknown>): boolean {
  return (
    type === 'turn.started' ||
    (type === 'entry.added' && (body.entry as { kind?: unknown } | undefined)?.kind === 'user_message')
  );
}

interface Head {
  last: number;
  /** Loaded from the store in this process and not appended to yet. */
  fresh: boolean;
  /** Seq of the last `session.live` (0: none): the oldest `since` the log can answer. */
  reset: number;
  /** Oldest seq kept (after pruning). */
  first: number;
}

export interface EventLogOptions {
  now?: () => number;
  /** Keep at most this many events per session (older ones are pruned at turn ends). */
  retain?: number;
  onError?: (err: unknown) => void;
}

export class EventLog {
  private readonly heads = new Map<string, Head>();
  private pending: StoredEvent[] = [];
  private scheduled = false;
  private readonly now: () => number;
  readonly retain: number;

  constructor(
    /** Only its own table and whether the store is still open. */
    private readonly store: Pick<Store, 'events' | 'closed'>,
    private readonly o: EventLogOptions = {},
  ) {
    this.now = o.now ?? Date.now;
    this.retain = o.retain ?? 200_000;
  }

  head(sessionId: string): Head {
    let h = this.heads.get(sessionId);
    if (!h) {
      const r = this.store.events.head(sessionId);
      h = { ...r, fresh: r.last > 0 };
      this.heads.set(sessionId, h);
    }
    return h;
  }

  /** Appends one event; returns it with its seq (committed by the next flush). */
  append<K extends StreamEventName>(sessionId: string, type: K, body: Record<string, unknown>): StreamEvent {
    const h = this.head(sessionId);
    if (h.fresh) {
      h.fresh = false;
      h.last += RESTART_GAP;
      // Nothing before the gap can be answered exactly any more (the lost tail might be mixed in).
      h.reset = h.last + 1;
    }
    const seq = ++h.last;
    if (type === 'session.live') h.reset = seq;
    const at = this.now();
    const ev = { ...body, sessionId, seq, at, type } as unknown as StreamEvent;
    const data = JSON.stringify(body);
    const omit = data.length > MAX_LOGGED_EVENT_BYTES && carriesPrompt(type, body);
    this.pending.push({ sessionId, seq, at, type, data: omit ? `${OMITTED}${data.length}}` : data });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return ev;
  }

  /** Commits what is pending (also before reads, so a read sees every appended event). */
  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0 || this.store.closed) return;
    const rows = this.pending;
    this.pending = [];
    try {
      this.store.events.append(rows);
    } catch (err) {
      this.o.onError?.(err);
    }
  }

  /**
   * Events after `since`, or undefined when the log cannot answer exactly (since older than the
   * last reset or the pruned part, or newer than the log: the client must take a snapshot).
   */
  after(sessionId: string, since: number, limit = 100_000): StreamEvent[] | undefined {
    const h = this.head(sessionId);
    if (since > h.last || since < h.reset || since < h.first - 1) return undefined;
    if (since === h.last) return [];
    this.flush();
    const rows = this.store.events.after(sessionId, since, limit);
    if (rows.some((r) => r.data.startsWith(OMITTED))) return undefined;
    return rows.map(
      (r) =>
        ({
          ...(JSON.parse(r.data) as object),
          sessionId: r.sessionId,
          seq: r.seq,
          at: r.at,
          type: r.type,
        }) as unknown as StreamEvent,
    );
  }

  /** Drops the oldest events past the retention cap. */
  prune(sessionId: string): void {
    const h = this.head(sessionId);
    const keepFrom = h.last - this.retain + 1;
    if (keepFrom <= h.first) return;
    this.flush();
    this.store.events.dropBefore(sessionId, keepFrom);
    h.first = keepFrom;
  }
}
