/** The first schema: workspaces, sessions, wire log, thread entries, turns, permissions. */
import type { Database } from 'better-sqlite3';

export const name = 'initial';

export function up(db: Database): void {
  db.exec(`
    CREATE TABLE workspaces (
      id               TEXT PRIMARY KEY,
      path             TEXT NOT NULL UNIQUE,
      name             TEXT NOT NULL,
      default_provider TEXT,
      profile          TEXT,
      created_at       INTEGER NOT NULL,
      updated_at       INTEGER NOT NULL
    );

    CREATE TABLE sessions (
      id               TEXT PRIMARY KEY,            -- Talaria's id (stable across agents)
      agent_session_id TEXT,                        -- the agent's ACP sessionId, once known
      provider         TEXT NOT NULL,
      profile          TEXT,
      workspace_id     TEXT REFERENCES workspaces(id) ON DELETE SET NULL,
      cwd              TEXT NOT NULL,
      title            TEXT,
      archived         INTEGER NOT NULL DEFAULT 0,  -- Talaria-side only: nothing is deleted
      created_at       INTEGER NOT NULL,
      updated_at       INTEGER NOT NULL,
      last_active_at   INTEGER,
      agent_info       TEXT                         -- JSON (initialize's agentInfo, capabilities…)
    );
    CREATE INDEX sessions_listing ON sessions (archived, last_active_at DESC, created_at DESC);
    CREATE INDEX sessions_workspace ON sessions (workspace_id, archived, last_active_at DESC);
    CREATE INDEX sessions_agent ON sessions (provider, agent_session_id);

    -- One row per frame, in the fixture line format's parts; msg is the JSON text as received.
    CREATE TABLE wire_log (
      session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      seq        INTEGER NOT NULL,
      t_ms       REAL NOT NULL,
      dir        TEXT NOT NULL CHECK (dir IN ('client->agent', 'agent->client')),
      msg        TEXT NOT NULL,
      PRIMARY KEY (session_id, seq)
    );

    -- Thread entries change in place (streamed text, tool status): upserted by position.
    CREATE TABLE entries (
      session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      idx        INTEGER NOT NULL,
      entry_id   TEXT NOT NULL,
      kind       TEXT NOT NULL,
      turn_id    TEXT,
      json       TEXT NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (session_id, idx)
    );

    -- The rest of a thread snapshot (plan, commands, mode, config, title, context…), entries excluded.
    CREATE TABLE threads (
      session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
      json       TEXT NOT NULL,
      updated_at INTEGER NOT NULL
    );

    -- Turn ids restart per live Session object, so (session_id, turn_id) is not unique across restarts.
    CREATE TABLE turns (
      id          INTEGER PRIMARY KEY,
      session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      turn_id     TEXT NOT NULL,
      prompt      TEXT,                 -- JSON content blocks
      stop_reason TEXT,
      usage       TEXT,                 -- JSON
      error       TEXT,                 -- JSON {code, message, data?}
      started_at  INTEGER,
      ended_at    INTEGER,
      duration_ms REAL
    );
    CREATE INDEX turns_session ON turns (session_id, turn_id, id);

    CREATE TABLE permission_rules (
      id         INTEGER PRIMARY KEY,
      scope      TEXT NOT NULL CHECK (scope IN ('global', 'workspace', 'session')),
      scope_id   TEXT,                  -- workspace or session id; NULL for global
      rule       TEXT NOT NULL,         -- JSON PermissionRule
      source     TEXT,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX permission_rules_scope ON permission_rules (scope, scope_id, id);

    -- One row per permission decision (PermissionDecisionEvent).
    CREATE TABLE permission_audit (
      id               INTEGER PRIMARY KEY,
      session_id       TEXT,              -- Talaria session id when known
      agent_session_id TEXT,
      request_key      TEXT,
      tool_call_id     TEXT,
      decided_by       TEXT NOT NULL,
      outcome          TEXT NOT NULL,     -- JSON PermissionOutcome
      option_kind      TEXT,
      answered_by      TEXT,
      reason           TEXT,
      rule             TEXT,              -- JSON
      subject          TEXT,              -- JSON
      at               INTEGER NOT NULL
    );
    CREATE INDEX permission_audit_session ON permission_audit (session_id, id);
  `);
}
