/**
 * The stall watchdog of one process: while a turn runs and no frame arrives for `stallMs`, each
 * running turn gets a `turn.stalled` event and is cancelled; if the agent then stays silent for
 * `cancelGraceMs` more, the process is stopped (its turns end `timeout`, its sessions reload on
 * next use). Waiting for a person to answer a permission is not silence.
 */
import { background } from '../os/background.js';
import type { Generation } from './generation.js';
import type { SlotPart } from './parts.js';

/** What the watchdog reads of (and does to) the slot. */
type Slot = Pick<SlotPart, 'key' | 'cfg' | 'logger' | 'emit' | 'closeGen'>;

export function armWatchdog(slot: Slot, gen: Generation, ms: number): void {
  if (!Number.isFinite(slot.cfg.stallMs) || !gen.alive) return;
  if (gen.watchdog) clearTimeout(gen.watchdog);
  gen.watchdog = setTimeout(() => checkStall(slot, gen), Math.max(1, ms));
  gen.watchdog.unref();
}

function checkStall(slot: Slot, gen: Generation): void {
  gen.watchdog = undefined;
  if (!gen.alive || gen.running.size === 0) {
    gen.stallCancelledAt = undefined;
    return;
  }
  const now = Date.now();
  const { stallMs, cancelGraceMs } = slot.cfg;
  // A person is deciding a permission: the agent waits on us, not the other way round.
  if (gen.asks.size > 0) {
    gen.lastActivity = now;
    return armWatchdog(slot, gen, stallMs);
  }
  if (gen.stallCancelledAt !== undefined) {
    if (gen.lastActivity > gen.stallCancelledAt) gen.stallCancelledAt = undefined;
    else if (now - gen.stallCancelledAt >= cancelGraceMs) {
      slot.logger.warn('agent stayed silent after cancel; stopping it', { provider: slot.key.provider, pid: gen.pid });
      background(slot.closeGen(gen, 'stalled'), slot.logger, 'stopping the stalled agent', { pid: gen.pid });
      return;
    } else return armWatchdog(slot, gen, cancelGraceMs - (now - gen.stallCancelledAt));
  }
  const silent = now - gen.lastActivity;
  if (silent < stallMs) return armWatchdog(slot, gen, stallMs - silent);
  gen.stallCancelledAt = now;
  for (const b of gen.running) {
    const turnId = b.session.running?.id;
    slot.emit('turn.stalled', {
      key: slot.key,
      generation: gen.n,
      sessionId: b.id,
      ...(turnId ? { turnId } : {}),
      silentMs: silent,
    });
    background(b.session.cancel(), slot.logger, 'cancelling the stalled turn', { sessionId: b.id });
  }
  armWatchdog(slot, gen, cancelGraceMs);
}
