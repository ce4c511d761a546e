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
 *
 * The store may refuse for a while (`store_busy`: locked by another process, PostgreSQL
 * restarting) — exactly when `recording.delayed` must reach the browsers. Live delivery never waits
 * on the store (the hub fans an event out before any commit), and what the store refuses for now is
 * kept in memory, in order, and retried with a backoff (not on every tick: each try can wait a
 * busy timeout), so no event is lost or given a hole in its seqs; `after` answers from the store
 * plus what still waits. The recording events are logged like any other for that reason: a client
 * that resumes with `since` folds them too, and its banner is right.
 */
import { asStoreError, type Store, type StoredEvent } from '../store/index.js';
import { BusyHold, isStoreBusy, type BusyHoldLimits } from '../store/busy-hold.js';
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
/**
 * Retries of a refused commit: doubling from the first, up to the last (ms). Sparse on purpose: a
 * try against a locked SQLite file holds the event loop for the store's busy timeout (5 s by
 * default), and the recorder probes the store anyway: its catch-up retries at once (storeBack).
 * Events wait as long as the server runs, up to 200,000 of them (then all waiting are dropped and
 * reported; a resume from before the drop gets a snapshot).
 */
const HOLD: BusyHoldLimits = {
  maxCount: 200_000,
  maxBytes: 256 << 20,
  maxMs: Number.POSITIVE_INFINITY,
  retryMinMs: 1_000,
  retryMaxMs: 30_000,
};

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
  /** Bounds of what waits while the store refuses (tests make them small). */
  hold?: Partial<BusyHoldLimits>;
}

export class EventLog {
  private readonly heads = new Map<string, Head>();
  private pending: StoredEvent[] = [];
  private scheduled = false;
  /** What the store refused for now, in order, retried with backoff (the store's one hold). */
  private readonly hold: BusyHold<StoredEvent[]>;
  private held = 0;
  private readonly now: () => number;
  readonly retain: number;

  constructor(
    /** Only its own table and whether the store is still open. */
    private readonly store: Pick<Store, 'events' | 'closed'>,
    private readonly o: EventLogOptions = {},
  ) {
    this.now = o.now ?? Date.now;
    this.retain = o.retain ?? 200_000;
    this.hold = new BusyHold<StoredEvent[]>({
      limits: { ...HOLD, ...o.hold },
      commit: (h) => {
        this.store.events.append(h.item);
        return true;
      },
      classify: (err) => asError(asStoreError(err, 'session_events', 'append events')),
      dropped: (err) => {
        // Seqs now have a hole: a resume from before it is answered with a snapshot.
        for (const head of this.heads.values()) head.reset = Math.max(head.reset, head.last + 1);
        this.o.onError?.(err);
      },
      delayed: () => {},
      caughtUp: () => {},
      what: 'event log',
      unit: 'events',
      now: this.now,
    });
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
    const h = { no: this.held++, item: rows, count: rows.length, bytes: bytesOf(rows) };
    // Behind what the store refused for now: kept in order, the retry timer writes it.
    if (!this.hold.empty) return this.hold.add(h);
    try {
      this.store.events.append(rows);
    } catch (err) {
      const e = asError(asStoreError(err, 'session_events', 'append events'));
      if (isStoreBusy(e)) this.hold.add(h, e);
      else this.o.onError?.(err);
    }
  }

  /** Events appended and not in the store yet (it refused them for now). */
  get waiting(): number {
    return this.pending.length + this.hold.held;
  }

  /** The store took a commit again (a recorder caught up): what waits is tried at once, not at the next backoff. */
  storeBack(): void {
    this.hold.soon();
  }

  /** Stops retrying (the server is closing): one last try. */
  close(): void {
    this.flush();
    if (!this.store.closed) this.hold.retry();
    this.hold.stop();
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
    // What the store has not taken yet is newer than anything it has: it follows the stored rows.
    const waiting = this.hold.items.flatMap((h) => h.item).concat(this.pending);
    const rows = this.store.events
      .after(sessionId, since, limit)
      .concat(waiting.filter((r) => r.sessionId === sessionId && r.seq > since))
      .slice(0, limit);
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
    // Pruning is a write too: while the store refuses, it waits for a later turn's end.
    if (!this.hold.empty) return;
    try {
      this.store.events.dropBefore(sessionId, keepFrom);
      h.first = keepFrom;
    } catch (err) {
      this.o.onError?.(err);
    }
  }
}

const bytesOf = (rows: StoredEvent[]): number => rows.reduce((n, r) => n + r.data.length + 64, 0);
const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));
