import { isObj } from '../state/entries.js';

interface Stop {
  stopReason: string;
  error?: { code: string; message: string } | undefined;
}

/**
 * How the last turn ended, under the thread, when it did not simply end. A failed turn's whole
 * error is already in the thread (its stored `turn_failed` notice, server/session-failure.ts):
 * this line then keeps to its first clause, not the agent's stderr a second time.
 */
export function TurnEnd({ stop, entries }: { stop: Stop; entries: readonly unknown[] }) {
  const last = entries[entries.length - 1];
  const noted = isObj(last) && last.kind === 'notice' && last.code === 'turn_failed';
  const message = stop.error ? (noted ? stop.error.message.split('; ')[0] : stop.error.message) : undefined;
  return (
    <div className={`turn-end ${stop.error ? 'error' : 'muted'} small`} role="status">
      Turn ended: {stop.stopReason === 'cancelled' ? 'cancelled' : stop.stopReason}
      {message ? ` — ${message}` : ''}
    </div>
  );
}
