/**
 * Branches of conversations (migration 004): which agent sessions a Talaria session continued
 * in, and which Talaria sessions branched off which, where, and why.
 */
import { randomUUID } from 'node:crypto';
import type { SqlDb } from './sql.js';

export type BranchReason = 'overflow' | 'rewind' | 'continue' | 'fork';

export interface Branch {
  id: string;
  /** The Talaria session that is the branch. */
  sessionId: string;
  /** The Talaria session it branched from (the same id when only the agent session changed). */
  parentId?: string;
  reason: BranchReason;
  agentSessionId?: string;
  previousAgentSessionId?: string;
  provider: string;
  /** `continue`: the agent the conversation came from. */
  fromProvider?: string;
  /** `rewind`: the parent's entry (the user message) it forks at. */
  forkEntryId?: string;
  createdAt: number;
}

export type NewBranch = Omit<Branch, 'id' | 'createdAt'>;

interface Row {
  id: string;
  session_id: string;
  parent_id: string | null;
  reason: string;
  agent_session_id: string | null;
  previous_agent_session_id: string | null;
  provider: string;
  from_provider: string | null;
  fork_entry_id: string | null;
  created_at: number;
}

const opt = <K extends string>(k: K, v: string | null) => (v === null ? {} : ({ [k]: v } as Record<K, string>));

const toBranch = (r: Row): Branch => ({
  id: r.id,
  sessionId: r.session_id,
  ...opt('parentId', r.parent_id),
  reason: r.reason as BranchReason,
  ...opt('agentSessionId', r.agent_session_id),
  ...opt('previousAgentSessionId', r.previous_agent_session_id),
  provider: r.provider,
  ...opt('fromProvider', r.from_provider),
  ...opt('forkEntryId', r.fork_entry_id),
  createdAt: r.created_at,
});

export type BranchesRepo = ReturnType<typeof createBranchesRepo>;

export function createBranchesRepo(db: SqlDb, now: () => number = Date.now) {
  const insert = db.prepare(
    `INSERT INTO session_branches (id, session_id, parent_id, reason, agent_session_id, previous_agent_session_id, provider, from_provider, fork_entry_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const ofSession = db.prepare<[string], Row>(
    'SELECT * FROM session_branches WHERE session_id = ? ORDER BY created_at, rowid',
  );
  const children = db.prepare<[string, string], Row>(
    'SELECT * FROM session_branches WHERE parent_id = ? AND session_id <> ? ORDER BY created_at, rowid',
  );
  const parentOf = db.prepare<[string, string], Row>(
    'SELECT * FROM session_branches WHERE session_id = ? AND parent_id IS NOT NULL AND parent_id <> ? ORDER BY created_at, rowid LIMIT 1',
  );

  return {
    add(b: NewBranch): Branch {
      const row: Row = {
        id: randomUUID(),
        session_id: b.sessionId,
        parent_id: b.parentId ?? null,
        reason: b.reason,
        agent_session_id: b.agentSessionId ?? null,
        previous_agent_session_id: b.previousAgentSessionId ?? null,
        provider: b.provider,
        from_provider: b.fromProvider ?? null,
        fork_entry_id: b.forkEntryId ?? null,
        created_at: now(),
      };
      insert.run(
        row.id,
        row.session_id,
        row.parent_id,
        row.reason,
        row.agent_session_id,
        row.previous_agent_session_id,
        row.provider,
        row.from_provider,
        row.fork_entry_id,
        row.created_at,
      );
      return toBranch(row);
    },
    /** Every branch point recorded under this session (its agent sessions, how it was made), oldest first. */
    of(sessionId: string): Branch[] {
      return ofSession.all(sessionId).map(toBranch);
    },
    /** The sessions that branched off this one (rewinds, continuations), oldest first. */
    children(sessionId: string): Branch[] {
      return children.all(sessionId, sessionId).map(toBranch);
    },
    /** How this session branched off another, if it did. */
    origin(sessionId: string): Branch | undefined {
      const r = parentOf.get(sessionId, sessionId);
      return r ? toBranch(r) : undefined;
    },
  };
}
