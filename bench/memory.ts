/**
 * Heap measurement for the memory cases. They run isolated (`--expose-gc`, a fresh process), but
 * the smoke test calls them in-process, so `gc` falls back to enabling the flag at run time.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gcFn: (() => void) | undefined = (globalThis as { gc?: () => void }).gc;
if (!gcFn) {
  try {
    setFlagsFromString('--expose-gc');
    gcFn = runInNewContext('gc') as () => void;
  } catch {
    gcFn = undefined;
  }
}

/** Full collections until the heap stops shrinking (weak refs and finalizers settle). */
export function fullGc(): void {
  if (!gcFn) return;
  let last = Infinity;
  for (let i = 0; i < 4; i++) {
    gcFn();
    const now = heapUsed();
    if (last - now < 64 * 1024) return;
    last = now;
  }
}

export const hasGc = (): boolean => gcFn !== undefined;

export function heapUsed(): number {
  return getHeapStatistics().used_heap_size;
}

export const MB = 1024 * 1024;

/**
 * Highest heap seen since `start()`: call `sample()` from the hot loop every so often (it reads
 * one V8 counter) and at the end of each phase. Peak is reported above the collected baseline.
 */
export class PeakHeap {
  private base = 0;
  private peak = 0;
  start(): void {
    fullGc();
    this.base = heapUsed();
    this.peak = this.base;
  }
  sample(): void {
    const h = heapUsed();
    if (h > this.peak) this.peak = h;
  }
  get baseBytes(): number {
    return this.base;
  }
  /** MB above the baseline. */
  get peakMb(): number {
    return (this.peak - this.base) / MB;
  }
}
