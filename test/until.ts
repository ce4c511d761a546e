import { vi } from 'vitest';

export interface UntilOptions {
  /** What is awaited, for the failure message. */
  what?: string;
  /** The deadline (default 30 s: well inside every suite's test timeout, far above a loaded machine's worst). */
  ms?: number;
  /** How often `probe` is asked (default 10 ms). */
  every?: number;
}

/**
 * The one poll of the tests: waits until `probe` returns something truthy and returns it, or fails
 * with `what` after `ms`. For state that has no event of its own (a file, a pid, a counter);
 * anything with an event waits on the event instead.
 */
export function until<T>(probe: () => T | Promise<T>, o: UntilOptions = {}): Promise<NonNullable<T>> {
  const what = o.what ?? 'the condition';
  return vi.waitFor(
    async () => {
      const v = await probe();
      if (!v) throw new Error(`still waiting for ${what}`);
      return v as NonNullable<T>;
    },
    { timeout: o.ms ?? 30_000, interval: o.every ?? 10 },
  );
}
