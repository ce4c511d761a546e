/**
 * Stall watchdog for one turn: when the agent sends no frame for `stallMs` while the turn runs,
 * the turn is cancelled and reported `stalled` with a clear message (opencode and kilo hang
 * silently on an unreachable cloud model when they have no credentials).
 */
import type { Session } from '../../../src/session/session.js';
import type { Turn, TurnResult } from '../../../src/session/turn.js';
import type { Recorder } from './recorder.js';

export interface Watched {
  result: TurnResult;
  stalled?: { code: 'stalled'; message: string; silentMs: number };
}

export async function watchTurn(
  session: Session,
  turn: Turn,
  rec: Recorder,
  stallMs: number,
  graceMs = 10_000,
): Promise<Watched> {
  let stalled: Watched['stalled'];
  let timer: NodeJS.Timeout | undefined;
  let onStall!: () => void;
  const stalledP = new Promise<void>((r) => (onStall = r));
  const tick = (): void => {
    const silent = Date.now() - rec.lastAgentFrameAt;
    if (silent < stallMs) {
      timer = setTimeout(tick, stallMs - silent + 10);
      return;
    }
    stalled = {
      code: 'stalled',
      silentMs: silent,
      message: `the agent sent nothing for ${Math.round(silent / 1000)} s during a turn (no model reachable? missing credentials?); the turn was cancelled`,
    };
    void session.cancel();
    onStall();
  };
  rec.lastAgentFrameAt = Date.now();
  timer = setTimeout(tick, stallMs);
  // A cancel the agent ignores must not hang the matrix: give up after a grace period.
  let grace: NodeJS.Timeout | undefined;
  const gaveUp = stalledP.then(
    () =>
      new Promise<TurnResult>((resolve) => {
        grace = setTimeout(
          () =>
            resolve({
              turnId: turn.id,
              stopReason: 'error',
              durationMs: 0,
              error: { code: 'stalled', message: stalled!.message },
            }),
          graceMs,
        ).unref();
      }),
  );
  const result = await Promise.race([turn.result, gaveUp]);
  clearTimeout(timer);
  clearTimeout(grace);
  return { result, ...(stalled ? { stalled } : {}) };
}
