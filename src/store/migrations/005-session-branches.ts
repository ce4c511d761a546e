/**
 * The branch tree of a conversation: every agent session a Talaria session continued in, and
 * every Talaria session that branched off another (rewind at an earlier message, continued with
 * another agent). One row per branch point, with its provenance.
 */
import type { Database } from 'better-sqlite3';

export const name = 'session-branches';

export function up(db: Database): void {
  db.exec(`
    CREATE TABLE session_branches (
      id                  TEXT PRIMARY KEY,
      session_id          TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,   -- the branch (a Talaria session)
      parent_id           TEXT REFERENCES sessions(id) ON DELETE SET NULL,           -- what it branched from (itself: a new agent session under it)
      reason              TEXT NOT NULL,        -- overflow | rewind | continue
      agent_session_id    TEXT,                 -- the agent session it continues in
      previous_agent_session_id TEXT,           -- the one before (overflow), or the parent's
      provider            TEXT NOT NULL,
      from_provider       TEXT,                 -- continue: the agent the conversation came from
      fork_entry_id       TEXT,                 -- rewind: the parent's message it forks at
      created_at          INTEGER NOT NULL
    );
    CREATE INDEX session_branches_session ON session_branches(session_id, created_at);
    CREATE INDEX session_branches_parent ON session_branches(parent_id, created_at);
  `);
}
