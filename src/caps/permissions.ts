/**
 * Pending permission requests of live sessions, each answerable through one-shot responder
 * objects: the first answer (from any responder, any client, the CLI or the web UI) wins, and
 * every responder of that request is shut once it is decided.
 */
import type { SessionEvent } from '../session/events.js';
import type { Gate } from './gate.js';
import type { LiveSession } from './live.js';

export type AskedEvent = Extract<SessionEvent, { type: 'permission.asked' }>;

export interface Pending {
  sessionId: string;
  asked: AskedEvent;
  /** Responder gates handed out for it (shut when it is decided). */
  gates: Set<Gate>;
}

export class Permissions {
  private readonly pending = new Map<string, Pending>();

  watch(ls: LiveSession): () => void {
    return ls.hs.subscribe((e) => {
      if (e.type === 'permission.asked') this.pending.set(e.requestKey, { sessionId: ls.hs.id, asked: e, gates: new Set() });
      else if (e.type === 'permission.decided') this.decided(e.requestKey);
      else if (e.type === 'session.closed') for (const [k, p] of this.pending) if (p.sessionId === ls.hs.id) this.decided(k);
    });
  }

  get(requestKey: string): Pending | undefined {
    return this.pending.get(requestKey);
  }

  private decided(requestKey: string): void {
    const p = this.pending.get(requestKey);
    if (!p) return;
    this.pending.delete(requestKey);
    for (const g of p.gates) g.shut('this permission request was already answered');
  }
}
