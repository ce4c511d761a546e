/**
 * The wall clock read once per synchronous batch: the events of one transport read all happen
 * within the same fraction of a millisecond, so they share one `Date.now()` instead of reading
 * the clock per streamed chunk. The cached value is dropped at the next microtask checkpoint,
 * which Node reaches after every read callback.
 */
let cached = -1;
const forget = (): void => {
  cached = -1;
};
// A reaction on a settled promise rather than Node's queueMicrotask, which builds an
// AsyncResource per call. `forget` cannot throw, so the chained promise never rejects.
const settled = Promise.resolve();

export function batchNow(): number {
  if (cached < 0) {
    cached = Date.now();
    void settled.then(forget);
  }
  return cached;
}
