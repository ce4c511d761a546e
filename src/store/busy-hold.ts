/**
 * What waits while the store refuses writes for now (`store_busy`: SQLite's lock held past its
 * busy timeout by another process, a PostgreSQL server restarting). One road for every writer
 * that must not lose what it writes to a short outage: the recorder's batches (harness) and the
 * server's event log. Items are kept in their order, retried oldest first with a doubling backoff,
 * and bounded: past `maxCount`, `maxBytes` or `maxMs` everything held is dropped and reported as
 * one loss naming its size and why. While it holds, `delayed` says so (on the first failure, then
 * after each failed retry); `caughtUp` once it drains.
 */
import { TalariaError } from '../protocol/errors.js';
import type { Logger } from '../protocol/types.js';
import type { StoreError } from './errors.js';

export interface BusyHoldLimits {
  /** Units held at most (frames, events) before giving up. */
  maxCount: number;
  /** Bytes held at most before giving up. */
  maxBytes: number;
  /** How long an outage is waited out (ms) before giving up. */
  maxMs: number;
  /** First retry after this long (ms); doubles up to retryMaxMs. */
  retryMinMs: number;
  retryMaxMs: number;
}

/** One item held, with its place in the writer's order and what the bounds count of it. */
export interface Held<T> {
  no: number;
  item: T;
  count: number;
  bytes: number;
}

export interface BusyDelay {
  /** Units waiting for the store. */
  count: number;
  bytes: number;
  /** When the store stopped taking writes (epoch ms). */
  since: number;
  /** The last failure (a StoreError `store_busy`). */
  error: Error;
}

export interface BusyHoldDeps<T, R> {
  limits: BusyHoldLimits;
  /**
   * Writes one held item now and returns what the write answered; `undefined` when it may not be
   * written yet (an older one is still on its way). Throws what the store threw.
   */
  commit(h: Held<T>): R | undefined;
  /** After `h` left the hold (a callback may write again: it sees the hold without `h`). */
  committed?(h: Held<T>, r: R): void;
  /** The error as the store's: its code says transient (`store_busy`) or not. */
  classify(err: unknown): Error;
  /** Held units are lost: one item the store refused for good, or all of them on giving up. */
  dropped(err: Error, count: number): void;
  delayed(d: BusyDelay): void;
  caughtUp(c: { count: number; outageMs: number }): void;
  /** Names what is held in the give-up message ("recording", "frames"). */
  what: string;
  unit: string;
  /** An outage is logged when it starts and when it ends, once each. */
  log?: Logger;
  logFields?: Record<string, unknown>;
  now?: () => number;
}

export const isStoreBusy = (err: unknown): boolean => (err as Partial<StoreError> | null)?.code === 'store_busy';

export class BusyHold<T, R = true> {
  private q: Held<T>[] = [];
  private count = 0;
  private bytes = 0;
  private since = 0;
  private backoff: number;
  private timer: NodeJS.Timeout | undefined;
  private lastError: Error | undefined;
  /** An outage was announced and its end not yet (a nested retry, from a callback, must not say it twice). */
  private out = false;
  private readonly now: () => number;

  constructor(private readonly d: BusyHoldDeps<T, R>) {
    this.backoff = d.limits.retryMinMs;
    this.now = d.now ?? Date.now;
  }

  get empty(): boolean {
    return this.q.length === 0;
  }

  get held(): number {
    return this.count;
  }

  /** What is held, oldest first (read-only: readers answer from it while the store is out). */
  get items(): readonly Held<T>[] {
    return this.q;
  }

  /** The place of the oldest item held. */
  get oldest(): number | undefined {
    return this.q[0]?.no;
  }

  /** When the store stopped taking writes (epoch ms), while something is held. */
  get heldSince(): number | undefined {
    return this.empty ? undefined : this.since;
  }

  /** `h` waits behind what is held (`err`: it failed for now; without: it came after a failure). */
  add(h: Held<T>, err?: Error): void {
    const first = this.empty;
    if (first) {
      this.since = this.now();
      this.backoff = this.d.limits.retryMinMs;
    }
    // In order: an item answered late (the writer thread) goes before newer ones held meanwhile.
    let i = this.q.length;
    while (i > 0 && this.q[i - 1]!.no > h.no) i--;
    this.q.splice(i, 0, h);
    this.count += h.count;
    this.bytes += h.bytes;
    if (err) this.lastError = err;
    if (this.overLimit()) return;
    if (first) {
      this.d.log?.warn(`store: ${this.d.what} delayed; held and retried`, {
        ...this.d.logFields,
        error: this.lastError?.message,
      });
      this.announce();
    }
    this.arm();
  }

  /**
   * Writes what is held, oldest first, now: until all is written, or the store fails for now
   * again (the rest waits for the next retry). An item the store refuses for good is dropped and
   * reported, and the next one tried.
   */
  retry(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.empty) return;
    let stored = 0;
    while (this.q.length > 0) {
      const h = this.q[0]!;
      let r: R | undefined;
      try {
        r = this.d.commit(h);
        if (r === undefined) {
          if (!this.overLimit()) this.arm(); // after the older item's answer
          return;
        }
      } catch (thrown) {
        const err = this.d.classify(thrown);
        if (isStoreBusy(err)) {
          this.lastError = err;
          if (this.overLimit()) return;
          this.announce();
          this.backoff = Math.min(this.backoff * 2, this.d.limits.retryMaxMs);
          this.arm();
          return;
        }
        this.shift();
        this.d.dropped(err, h.count);
        continue;
      }
      this.shift();
      stored += h.count;
      this.d.committed?.(h, r);
    }
    if (!this.out) return;
    this.out = false;
    this.d.log?.info(`store: ${this.d.what} caught up`, { ...this.d.logFields, [this.d.unit]: stored });
    this.d.caughtUp({ count: stored, outageMs: this.now() - this.since });
  }

  /** The next retry now (the store took a write elsewhere), not at the end of the backoff. */
  soon(): void {
    if (this.empty || !this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.backoff = this.d.limits.retryMinMs;
    // Not inside the caller's callback: the next turn of the event loop.
    this.timer = setTimeout(() => this.retry(), 0);
    this.timer.unref();
  }

  /** Stops retrying (the writer is closing); what is held stays held. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Drops everything held, reported as one loss naming its size and `why`. */
  giveUp(why: string): void {
    if (this.empty) return;
    const count = this.count;
    const batches = this.q.length;
    this.q = [];
    this.count = this.bytes = 0;
    this.out = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const cause = this.lastError ? `: ${this.lastError.message}` : '';
    const err = new TalariaError(
      'recording_failed',
      `${this.d.what} gave up: ${count} ${this.d.unit} (${batches} batches) waiting for the store were dropped — ${why}${cause}`,
      { [this.d.unit]: count, batches },
      { cause: this.lastError },
    );
    this.d.dropped(err, count);
  }

  /** Gives up when a bound is passed; true when it did. */
  private overLimit(): boolean {
    const l = this.d.limits;
    const held = this.now() - this.since;
    const why =
      this.count > l.maxCount
        ? `more than ${l.maxCount} ${this.d.unit} held`
        : this.bytes > l.maxBytes
          ? `more than ${l.maxBytes} bytes held`
          : held > l.maxMs
            ? `the store has been unavailable for ${duration(held)} (limit ${duration(l.maxMs)})`
            : undefined;
    if (why === undefined) return false;
    this.giveUp(why);
    return true;
  }

  private announce(): void {
    this.out = true;
    this.d.delayed({
      count: this.count,
      bytes: this.bytes,
      since: this.since,
      error: this.lastError ?? new Error('the store is unavailable'),
    });
  }

  /** The retry timer: it never keeps the process alive by itself. */
  private arm(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.retry(), this.backoff);
    this.timer.unref();
  }

  private shift(): void {
    const h = this.q.shift()!;
    this.count -= h.count;
    this.bytes -= h.bytes;
  }
}

const duration = (ms: number): string => (ms < 10_000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`);
