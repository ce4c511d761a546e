/**
 * Responders handed out for pending permission requests of live sessions: the first answer (from
 * any responder, any client, the CLI or the web UI) wins, and every responder of that request is
 * shut once it is decided. Whether a request is pending is the session's broker's to say (it holds
 * the request before the session emits `permission.asked`), never whether this face has heard the
 * event yet: under `talaria serve` the event log hears it, and pushes it to caps readers, first.
 */
import type { PendingPermission } from '../permission/broker-types.js';
import type { Gate } from './gate.js';
import type { LiveSession } from './live.js';

interface Held {
  sessionId: string;
  /** Responder gates handed out for it (shut when it is decided). */
  gates: Set<Gate>;
}

export class Permissions {
  private readonly held = new Map<string, Held>();

  watch(ls: LiveSession): () => void {
    return ls.hs.subscribe((e) => {
      if (e.type === 'permission.decided') this.decided(e.requestKey);
      else if (e.type === 'session.closed')
        for (const [k, h] of this.held) if (h.sessionId === ls.hs.id) this.decided(k);
    });
  }

  /** The request, if it is pending in this session now (another session's key is not). */
  pending(ls: LiveSession, requestKey: string): PendingPermission | undefined {
    return ls.hs.session.pendingPermissions().find((p) => p.requestKey === requestKey);
  }

  /** Shuts `gate` when the request is decided or its session closes. */
  hold(ls: LiveSession, requestKey: string, gate: Gate): void {
    let h = this.held.get(requestKey);
    if (!h) this.held.set(requestKey, (h = { sessionId: ls.hs.id, gates: new Set() }));
    const held = h;
    held.gates.add(gate);
    gate.onShut(() => {
      held.gates.delete(gate);
      if (held.gates.size === 0 && this.held.get(requestKey) === held) this.held.delete(requestKey);
    });
  }

  private decided(requestKey: string): void {
    const h = this.held.get(requestKey);
    if (!h) return;
    this.held.delete(requestKey);
    for (const g of [...h.gates]) g.shut('this permission request was already answered');
  }
}
