/**
 * The harness side of branches: when the host moves a live session to a fresh agent session
 * (host/reseed.ts, after a context overflow), the Talaria session stays and points at the new
 * agent session; the move is recorded as a branch with its provenance. The stored thread holds
 * the whole conversation, while the agent knows only its seeded copy: the seed's notice marks the
 * thread (thread/injected.ts), so a later session/load shows the stored thread, not the agent's
 * replay of the seed.
 */
import type { AgentHost } from '../host/host.js';
import type { PermissionDecisionEvent } from '../permission/types.js';
import type { Logger } from '../protocol/types.js';
import { TalariaError } from '../protocol/errors.js';
import type { BranchReason, Store } from '../store/index.js';
import type { SeedPlan } from '../host/binding.js';
import type { ThreadSnapshot } from '../thread/snapshot.js';

export const PARTIAL = 'agentHistory';
export const markPartial = (info: unknown) => ({
  ...((info as Record<string, unknown> | undefined) ?? {}),
  [PARTIAL]: 'partial',
});

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
        d.store.sessions.update(id, { agentSessionId: e.sessionId });
        d.store.branches.add({
          sessionId: id,
          parentId: id,
          reason: e.reason,
          agentSessionId: e.sessionId,
          previousAgentSessionId: e.previousSessionId,
          provider: row.provider,
        });
      });
    } catch (err) {
      d.logger.error('recording a new agent session failed', { sessionId: id, error: String(err) });
    }
  });
}

/**
 * A seed the next message still owes the agent, from the stored thread (so a later process —
 * `talaria run --session` — does it too): an overflow with no message since (the agent's session
 * is poisoned: a fresh one is needed), or a branch whose first message has not been sent yet.
 */
export function pendingSeed(snap: ThreadSnapshot | undefined): SeedPlan | undefined {
  const entries = snap?.entries ?? [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.kind === 'user_message') return undefined;
    if (e.kind !== 'notice') continue;
    if (e.code === 'context_reseeded' || e.code === 'history_seeded') return undefined;
    if (e.code === 'overflow_recovery') return { reason: 'overflow' };
    if (e.code === 'branched') {
      const d = (e.data ?? {}) as { reason?: unknown; fromLabel?: unknown };
      const reason = d.reason === 'rewind' ? 'rewind' : 'continue';
      return {
        reason,
        inPlace: true,
        ...(reason === 'continue' && typeof d.fromLabel === 'string' ? { from: d.fromLabel } : {}),
      };
    }
  }
  return undefined;
}

/** The stored thread up to (not including) entry `at`, which must be a user message. */
export function cutBefore(snap: ThreadSnapshot | undefined, at: string, sessionId: string): ThreadSnapshot {
  const entries = snap?.entries ?? [];
  const i = entries.findIndex((e) => e.id === at);
  if (i < 0 || entries[i]!.kind !== 'user_message') {
    throw new TalariaError('invalid_argument', `session ${sessionId} has no user message ${at} to go back to`, {
      sessionId,
      entryId: at,
    });
  }
  const { openTurnId: _open, openRun: _run, ...rest } = snap!;
  return { ...rest, entries: entries.slice(0, i), plan: null };
}

/** The entry id of the user message `back` messages from the end (1 = the last one). */
export function userMessageBack(snap: ThreadSnapshot | undefined, back: number, sessionId: string): string {
  const users = (snap?.entries ?? []).filter((e) => e.kind === 'user_message');
  const e = users[users.length - back];
  if (!Number.isInteger(back) || back < 1 || !e) {
    throw new TalariaError(
      'invalid_argument',
      `session ${sessionId} has ${users.length} message${users.length === 1 ? '' : 's'}; cannot go ${back} back`,
      { sessionId },
    );
  }
  return e.id;
}

export interface BranchNode {
  /** Talaria's session id (open it to continue that branch). */
  id: string;
  title?: string;
  provider: string;
  /** How it branched off its parent (absent for the root). */
  reason?: BranchReason;
  /** `rewind`: the parent's message it forks at. */
  forkEntryId?: string;
  fromProvider?: string;
  createdAt: number;
  /** Agent sessions it continued in after overflows, oldest first. */
  reseeds: number;
  children: BranchNode[];
}

/** The whole tree the session belongs to, from its root. */
export function branchTree(store: Store, id: string): BranchNode {
  let root = id;
  const seen = new Set<string>([id]);
  for (let up = store.branches.origin(root); up?.parentId && !seen.has(up.parentId); up = store.branches.origin(root)) {
    root = up.parentId;
    seen.add(root);
  }
  const node = (sid: string, depth: number): BranchNode => {
    const row = store.sessions.get(sid);
    // A conversation continued from a transcript Talaria never stored (Hermes' other channels)
    // has a `continue` row with no parent: a root that says where it came from.
    const origin =
      store.branches.origin(sid) ??
      store.branches.of(sid).find((b) => b.parentId === undefined && b.reason === 'continue');
    const kids =
      depth > 64
        ? []
        : store.branches.children(sid).filter((b, i, all) => all.findIndex((x) => x.sessionId === b.sessionId) === i);
    return {
      id: sid,
      ...(row?.title ? { title: row.title } : {}),
      provider: row?.provider ?? origin?.provider ?? '?',
      ...(origin ? { reason: origin.reason } : {}),
      ...(origin?.forkEntryId ? { forkEntryId: origin.forkEntryId } : {}),
      ...(origin?.fromProvider ? { fromProvider: origin.fromProvider } : {}),
      createdAt: row?.createdAt ?? origin?.createdAt ?? 0,
      reseeds: store.branches.of(sid).filter((b) => b.reason === 'overflow').length,
      children: kids.map((k) => node(k.sessionId, depth + 1)),
    };
  };
  return node(root, 0);
}
