/**
 * Where a stored session came from, for lists that show it: made by a one-shot `talaria run`
 * (kept in the row's agentInfo at creation, beside Talaria's other marks there: branches.ts
 * PARTIAL), or branched off another session (the branch tree: a rewind at a message, a
 * continuation in another agent, a fork).
 */
import type { Store, StoredSession } from '../store/index.js';

const CREATED_BY = 'createdBy';

/** The row's agentInfo with the creator's mark, when there is one. */
export function withCreatedBy(info: unknown, createdBy: 'run' | undefined): unknown {
  return createdBy ? { ...((info as Record<string, unknown> | undefined) ?? {}), [CREATED_BY]: createdBy } : info;
}

/** 'run' for a session a one-shot `talaria run` made. */
export function createdByOf(row: StoredSession): 'run' | undefined {
  return (row.agentInfo as Record<string, unknown> | undefined)?.[CREATED_BY] === 'run' ? 'run' : undefined;
}

export interface BranchOrigin {
  /** The session it branched off. */
  parentId: string;
  kind: 'rewind' | 'continue' | 'fork';
  /** `rewind`: which user message of the parent it went back to (1 = the first), when the parent still holds it. */
  atMessage?: number;
}

/** How the session branched off another, if it did (an overflow's new agent session is not a branch of another session). */
export function branchOrigin(store: Pick<Store, 'branches' | 'entries'>, id: string): BranchOrigin | undefined {
  const b = store.branches.origin(id);
  if (!b?.parentId || b.reason === 'overflow') return undefined;
  const atMessage =
    b.reason === 'rewind' && b.forkEntryId ? store.entries.userMessageNumber(b.parentId, b.forkEntryId) : undefined;
  return { parentId: b.parentId, kind: b.reason, ...(atMessage !== undefined ? { atMessage } : {}) };
}
