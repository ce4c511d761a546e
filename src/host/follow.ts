/**
 * What the host keeps in step with a hosted session's own events: a session its dead process
 * failed is recovered for its next use, a permission ask pauses the stall watchdog (watchdog.ts),
 * an ask its ended turn left is cancelled, and after a context overflow the next message goes to a
 * fresh seeded session (reseed.ts) on agents whose session cannot go on.
 */
import type { SessionBinding } from './binding.js';
import type { SlotPart } from './parts.js';

/** What following a session reads of its slot (at each event: the quirks change once a process said what it is). */
type Slot = Pick<SlotPart, 'bindings' | 'gens' | 'quirks' | 'label'>;

export function followSession(slot: Slot, b: SessionBinding): void {
  b.session.subscribe((e) => {
    const gen = b.gen;
    if (e.type === 'session.state' && e.state === 'failed') {
      // The core fails a session whose process died (its turn ended `agent_crashed`). It stays
      // usable: its next use starts a process and loads it first. Recovered in a microtask, so
      // the turn's end is emitted first and nothing the caller runs next sees it failed.
      queueMicrotask(() => {
        const g = b.gen;
        if (b.session.state === 'failed' && slot.bindings.get(b.id) === b && (!g || g.client.connection.isClosed))
          b.session.recover();
      });
    } else if (e.type === 'permission.asked') gen?.asks.add(e.requestKey);
    else if (e.type === 'permission.decided') {
      for (const g of slot.gens) g.asks.delete(e.requestKey);
      if (gen) gen.lastActivity = Date.now();
    } else if (e.type === 'turn.ended') {
      // An ask still open when its turn ended is moot (Hermes denies on its own after 60 s and
      // ends the turn): answer it `cancelled` so no client keeps showing it.
      gen?.client.broker.cancelTurn(e.turnId);
      if (e.error?.code === 'context_overflow' && slot.quirks.host.reseedOnOverflow && !b.seed) {
        // The agent's session cannot go on (it would merge every later prompt into the failed one,
        // and a reload replays it): the next message goes to a fresh session, seeded.
        b.seed = { reason: 'overflow' };
        b.session.notice(
          'info',
          'overflow_recovery',
          `Your next message continues in a fresh ${slot.label} session with a compact copy of this conversation.`,
        );
      }
    }
  });
}
