/**
 * Pushes items to a remote sink in batches with promise backpressure: one batch in flight; what
 * arrives meanwhile waits and goes out as the next batch once the sink's promise settles. A sink
 * that fails (its connection closed, it threw) or lets `maxQueued` items pile up is dropped.
 */
export interface PusherOptions {
  maxBatch?: number;
  /** Items waiting before the sink counts as stuck and is dropped. */
  maxQueued?: number;
  onClose?: (why: 'closed' | 'failed' | 'overflow', err?: unknown) => void;
}

export class Pusher<T> {
  private queue: T[] = [];
  private inflight: Promise<void> | undefined;
  private closed = false;
  private readonly idle = new Set<() => void>();
  private readonly maxBatch: number;
  private readonly maxQueued: number;

  constructor(
    private readonly send: (batch: T[]) => Promise<unknown>,
    private readonly o: PusherOptions = {},
  ) {
    this.maxBatch = o.maxBatch ?? 256;
    this.maxQueued = o.maxQueued ?? 50_000;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  push(item: T): void {
    if (this.closed) return;
    this.queue.push(item);
    if (this.queue.length > this.maxQueued) return this.close('overflow');
    if (!this.inflight) this.pump();
  }

  /** Resolves when everything pushed so far was acknowledged by the sink (or the pusher closed). */
  drained(): Promise<void> {
    if (this.closed || (!this.inflight && this.queue.length === 0)) return Promise.resolve();
    return new Promise((resolve) => this.idle.add(resolve));
  }

  close(why: 'closed' | 'failed' | 'overflow' = 'closed', err?: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.settleIdle();
    this.o.onClose?.(why, err);
  }

  private pump(): void {
    const batch = this.queue.splice(0, this.maxBatch);
    this.inflight = Promise.resolve()
      .then(() => this.send(batch))
      .then(
        () => {
          this.inflight = undefined;
          if (this.closed) return;
          if (this.queue.length) this.pump();
          else this.settleIdle();
        },
        (err: unknown) => {
          this.inflight = undefined;
          this.close('failed', err);
        },
      );
  }

  private settleIdle(): void {
    for (const fn of this.idle) fn();
    this.idle.clear();
  }
}
