/**
 * Each session's event stream as `talaria serve` sends it (session_events, migration 004). Rows
 * only: seqs, restart gaps, omitted prompts and trimming are decided by src/server/event-log.ts.
 */
import type { SqlDb } from './sql.js';

export interface StoredEvent {
  sessionId: string;
  seq: number;
  at: number;
  type: string;
  /** The event's payload (JSON), without the envelope. */
  data: string;
}

/** What the log of one session holds: 0 / 1 / 0 when it is empty. */
export interface EventsHead {
  /** The newest seq (0: none). */
  last: number;
  /** The oldest seq kept (1: none). */
  first: number;
  /** Seq of the last `session.live` (0: none). */
  reset: number;
}

interface Row {
  session_id: string;
  seq: number;
  at: number;
  type: string;
  data: string;
}

export type SessionEventsRepo = ReturnType<typeof createSessionEventsRepo>;

export function createSessionEventsRepo(db: SqlDb) {
  const insert = db.prepare('INSERT INTO session_events (session_id, seq, at, type, data) VALUES (?, ?, ?, ?, ?)');
  // One transaction per batch (the event log commits once per event-loop tick).
  const insertMany = db.transaction((rows: readonly StoredEvent[]) => {
    for (const r of rows) insert.run(r.sessionId, r.seq, r.at, r.type, r.data);
  });
  const head = db.prepare<[string, string], { last: number | null; first: number | null; reset: number | null }>(
    `SELECT MAX(seq) AS last, MIN(seq) AS first,
       (SELECT MAX(seq) FROM session_events WHERE session_id = ? AND type = 'session.live') AS reset
     FROM session_events WHERE session_id = ?`,
  );
  const after = db.prepare<[string, number, number], Row>(
    'SELECT session_id, seq, at, type, data FROM session_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?',
  );
  const dropBefore = db.prepare('DELETE FROM session_events WHERE session_id = ? AND seq < ?');

  return {
    head(sessionId: string): EventsHead {
      const r = head.get(sessionId, sessionId)!;
      return { last: r.last ?? 0, first: r.first ?? 1, reset: r.reset ?? 0 };
    },
    /** Appends the rows in one transaction. */
    append(rows: readonly StoredEvent[]): void {
      insertMany.immediate(rows);
    },
    /** Up to `limit` events after `since`, in seq order. */
    after(sessionId: string, since: number, limit: number): StoredEvent[] {
      return after.all(sessionId, since, limit).map((r) => ({
        sessionId: r.session_id,
        seq: r.seq,
        at: r.at,
        type: r.type,
        data: r.data,
      }));
    },
    /** Drops the session's events older than `seq`. */
    dropBefore(sessionId: string, seq: number): void {
      dropBefore.run(sessionId, seq);
    },
  };
}
