/**
 * Live status of sessions as their owner sees it (session_presence, migration 011): written by
 * the host that runs the session, read by the others (a fleet's session lists). A row whose host's
 * lease ran out is stale: readers show "host offline" from the host row, not from here.
 */
import type { SqlDb } from './sql.js';

export type PresenceStatus = 'idle' | 'running' | 'asking' | 'closed';

export interface SessionPresenceRow {
  sessionId: string;
  hostId: string;
  status: PresenceStatus;
  updatedAt: number;
}

interface Row {
  session_id: string;
  host_id: string;
  status: PresenceStatus;
  updated_at: number;
}

const toPresence = (r: Row): SessionPresenceRow => ({
  sessionId: r.session_id,
  hostId: r.host_id,
  status: r.status,
  updatedAt: Number(r.updated_at),
});

export type SessionPresenceRepo = ReturnType<typeof createSessionPresenceRepo>;

export function createSessionPresenceRepo(db: SqlDb) {
  const upsert = db.prepare(
    `INSERT INTO session_presence (session_id, host_id, status, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET host_id = excluded.host_id, status = excluded.status,
       updated_at = excluded.updated_at`,
  );
  // The first host to run a session created elsewhere does not take it: host_id names its creator.
  const claim = db.prepare('UPDATE sessions SET host_id = ? WHERE id = ? AND host_id IS NULL');
  const closeHost = db.prepare<[number, string], { session_id: string }>(
    "UPDATE session_presence SET status = 'closed', updated_at = ? WHERE host_id = ? AND status <> 'closed' RETURNING session_id",
  );
  const byId = db.prepare<[string], Row>('SELECT * FROM session_presence WHERE session_id = ?');
  const all = db.prepare<[], Row>('SELECT * FROM session_presence ORDER BY session_id');
  const hostOf = db.prepare<[string], { host_id: string | null }>('SELECT host_id FROM sessions WHERE id = ?');

  return {
    /** The session's status on `hostId` (false: no such session, nothing written). */
    set(sessionId: string, hostId: string, status: PresenceStatus, at: number): boolean {
      if (!hostOf.get(sessionId)) return false;
      claim.run(hostId, sessionId);
      upsert.run(sessionId, hostId, status, at);
      return true;
    },
    /** Marks every session of `hostId` closed (its host stopped); the ids changed. */
    closeHost(hostId: string, at: number): string[] {
      return closeHost.all(at, hostId).map((r) => r.session_id);
    },
    get(sessionId: string): SessionPresenceRow | undefined {
      const r = byId.get(sessionId);
      return r && toPresence(r);
    },
    list(): SessionPresenceRow[] {
      return all.all().map(toPresence);
    },
    /** The host that created the session, when a fleet member did. */
    hostOf(sessionId: string): string | undefined {
      return hostOf.get(sessionId)?.host_id ?? undefined;
    },
  };
}
