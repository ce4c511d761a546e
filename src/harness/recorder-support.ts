/** Small parts of the recorder (recorder.ts): callbacks that must not throw, and the idle checkpoint. */
import type { Logger } from '../protocol/types.js';
import type { Store } from '../store/index.js';

/** Calls `fn(v)`: callbacks run on the transport's stack or in a timer, where a throw must not escape. */
export function notifier(log: Logger | undefined, sessionId: string) {
  return <T>(fn: ((v: T) => void) | undefined, v: T): void => {
    if (!fn) return;
    try {
      fn(v);
    } catch (err) {
      log?.error('store: recorder callback threw', { sessionId, error: String(err) });
    }
  };
}

/**
 * Checkpoints the WAL once nothing was committed for `idleMs` (call the returned function after
 * each commit), on a timer that does not keep the process alive.
 */
export function idleCheckpoints(store: Store, idleMs: number, log: Logger | undefined, sessionId: string) {
  let idle: NodeJS.Timeout | undefined;
  function checkpoint(): void {
    idle = undefined;
    if (store.closed) return;
    try {
      store.checkpoint();
    } catch (err) {
      // Nothing is lost: the frames stay in the WAL, and the next checkpoint copies them.
      log?.warn('store: checkpoint failed', { sessionId, error: String(err) });
    }
  }
  return (): void => {
    if (idle) {
      idle.refresh();
      return;
    }
    idle = setTimeout(checkpoint, idleMs);
    idle.unref();
  };
}
