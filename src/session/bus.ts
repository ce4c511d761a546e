/**
 * A tiny synchronous event bus with async-iterable subscriptions.
 * Listeners run in emit order; a throwing listener is isolated (reported, never breaks the core).
 */
export type Listener<E> = (event: E) => void;

export class EventBus<E> {
  private listeners = new Set<Listener<E>>();

  constructor(private readonly onListenerError?: (err: unknown) => void) {}

  subscribe(fn: Listener<E>): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(event: E): void {
    for (const fn of this.listeners) {
      try {
        fn(event);
      } catch (err) {
        this.onListenerError?.(err);
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }

  /**
   * Async iteration over events from the first read on, until `until` resolves, `signal` aborts
   * or the consumer stops (return/throw, a `break` out of for-await). The listener is added on the
   * first `next()` and removed when the iteration ends, so an iterator nobody reads holds
   * nothing. Events are buffered without bound while a reading consumer is slow: a UI must not
   * lose frames.
   */
  iterate(
    opts: { until?: Promise<unknown>; signal?: AbortSignal; filter?: (e: E) => boolean } = {},
  ): AsyncIterableIterator<E> {
    const queue: E[] = [];
    let head = 0;
    let wake: (() => void) | null = null;
    let done = false;
    let unsubscribe: (() => void) | undefined;
    const finish = (): void => {
      if (done) return;
      done = true;
      unsubscribe?.();
      unsubscribe = undefined;
      opts.signal?.removeEventListener('abort', finish);
      wake?.();
    };
    const listen = (): void => {
      if (done || unsubscribe) return;
      unsubscribe = this.subscribe((e) => {
        if (opts.filter && !opts.filter(e)) return;
        queue.push(e);
        wake?.();
      });
    };
    // Let events emitted in the same tick as `until` settling still be delivered.
    opts.until?.then(
      () => setImmediate(finish),
      () => setImmediate(finish),
    );
    if (opts.signal) {
      if (opts.signal.aborted) finish();
      else opts.signal.addEventListener('abort', finish, { once: true });
    }
    const it: AsyncIterableIterator<E> = {
      async next(): Promise<IteratorResult<E>> {
        listen();
        for (;;) {
          if (head < queue.length) {
            const value = queue[head++]!;
            if (head > 1024 && head * 2 > queue.length) {
              queue.splice(0, head);
              head = 0;
            }
            return { value, done: false };
          }
          if (done) return { value: undefined, done: true };
          await new Promise<void>((r) => (wake = r));
          wake = null;
        }
      },
      async return(): Promise<IteratorResult<E>> {
        finish();
        return { value: undefined, done: true };
      },
      async throw(err?: unknown): Promise<IteratorResult<E>> {
        finish();
        throw err;
      },
      [Symbol.asyncIterator]() {
        return it;
      },
    };
    return it;
  }
}
