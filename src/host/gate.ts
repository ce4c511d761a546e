/**
 * A FIFO semaphore: at most `limit` holders; waiters can give up (cancel while queued).
 * Infinity means no limit (acquire resolves at once).
 */
export class Gate {
  private active = 0;
  private readonly waiters: { grant: () => void; fail: (e: unknown) => void }[] = [];

  constructor(readonly limit: number) {}

  get inUse(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiters.length;
  }

  /** Resolves with a release function; `onWait(position)` is called when it has to queue. */
  acquire(signal?: AbortSignal, onWait?: (position: number) => void): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const w = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.active++;
          resolve(this.releaser());
        },
        fail: reject,
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(w);
      onWait?.(this.waiters.length);
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.active--;
      const next = this.waiters.shift();
      next?.grant();
    };
  }
}
