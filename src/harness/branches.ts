/**
 * The harness side of branches: when the host moves a live session to a fresh agent session
 * (host/reseed.ts, after a context overflow), the Talaria session stays and points at the new
 * agent session; the move is recorded as a branch with its provenance. The stored thread holds
 * the whole conversation, while the agent knows only its seeded copy, so the row is marked partial
 * (a later session/load shows the stored thread, not the agent's replay of the seed).
 */
import type { AgentHost } from '../host/host.js';
import type { PermissionDecisionEvent } from '../permission/types.js';
import type { Logger } from '../protocol/types.js';
import type { Store } from '../store/index.js';
import type { ThreadSnapshot } from '../thread/snapshot.js';

export const PARTIAL = 'agentHistory';
export const markPartial = (info: unknown) => ({ ...((info as Record<string, unknown> | undefined) ?? {}), [PARTIAL]: 'partial' });

export interface ReseedDeps {
  store: Store;
  host: AgentHost;
  logger: Logger;
  decisions: Map<string, (e: PermissionDecisionEvent) => void>;
  talariaIds: Map<string, string>;
}

/** Follows `session.reseeded`: re-keys the live maps, points the row at the new agent session, records the branch. */
export function trackReseeds(d: ReseedDeps): () => void {
  return d.host.subscribe((e) => {
    if (e.type !== 'session.reseeded') return;
    const id = d.talariaIds.get(e.previousSessionId);
    if (id === undefined) return;
    d.talariaIds.delete(e.previousSessionId);
    d.talariaIds.set(e.sessionId, id);
    const audit = d.decisions.get(e.previousSessionId);
    if (audit) {
      d.decisions.delete(e.previousSessionId);
      d.decisions.set(e.sessionId, audit);
    }
    if (d.store.closed) return;
    try {
      const row = d.store.sessions.get(id);
      if (!row) return;
      d.store.transaction(() => {
        d.store.sessions.update(id, { agentSessionId: e.sessionId, agentInfo: markPartial(row.agentInfo) });
        d.store.branches.add({ sessionId: id, parentId: id, reason: e.reason, agentSessionId: e.sessionId, previousAgentSessionId: e.previousSessionId, provider: row.provider });
      });
    } catch (err) {
      d.logger.error('recording a new agent session failed', { sessionId: id, error: String(err) });
    }
  });
}

/**
 * An overflow the next message has to recover from (its notice is the last word: no message
 * and no reseat since). Kept in the stored thread, so a later process (`talaria run --session`)
 * recovers too instead of loading the poisoned agent session and overflowing again.
 */
export function overflowPending(snap: ThreadSnapshot | undefined): boolean {
  const entries = snap?.entries ?? [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.kind === 'user_message') return false;
    if (e.kind === 'notice' && e.code === 'context_reseeded') return false;
    if (e.kind === 'notice' && e.code === 'overflow_recovery') return true;
  }
  return false;
}
