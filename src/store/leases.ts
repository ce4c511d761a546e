/**
 * Writer leases: one Talaria process at a time writes a session (its wire log, its thread, its
 * turns). Two writers would interleave two conversations in one log and overwrite each other's
 * thread entries, so the second one waits for the lease or is refused. A lease names its holder
 * (a token per harness instance, its pid and host); the caller decides whether a holder is
 * still alive (a dead pid on this host frees the lease).
 */
import type { SqlDb } from './sql.js';

export interface Lease {
  sessionId: string;
  owner: string;
  pid: number;
  host: string;
  acquiredAt: number;
}

export interface LeaseHolder {
  owner: string;
  pid: number;
  host: string;
}

interface Row {
  session_id: string;
  owner: string;
  pid: number;
  host: string;
  acquired_at: number;
}

const toLease = (r: Row): Lease => ({
  sessionId: r.session_id,
  owner: r.owner,
  pid: r.pid,
  host: r.host,
  acquiredAt: r.acquired_at,
});

export type LeasesRepo = ReturnType<typeof createLeasesRepo>;

export function createLeasesRepo(db: SqlDb, now: () => number = Date.now) {
  const get = db.prepare<[string], Row>('SELECT * FROM session_leases WHERE session_id = ?');
  const put = db.prepare(
    `INSERT INTO session_leases (session_id, owner, pid, host, acquired_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, host = excluded.host,
       acquired_at = excluded.acquired_at`,
  );
  const drop = db.prepare('DELETE FROM session_leases WHERE session_id = ? AND owner = ?');
  const take = db.transaction((sessionId: string, me: LeaseHolder, alive: (l: Lease) => boolean): Lease | undefined => {
    const row = get.get(sessionId);
    if (row && row.owner !== me.owner && alive(toLease(row))) return toLease(row);
    put.run(sessionId, me.owner, me.pid, me.host, now());
    return undefined;
  });

  return {
    /**
     * Takes the lease of `sessionId` for `me` unless a live holder has it (then returns that
     * holder). Taken under the write lock, so two processes never both get it.
     */
    acquire(sessionId: string, me: LeaseHolder, alive: (l: Lease) => boolean): Lease | undefined {
      return take.immediate(sessionId, me, alive);
    },
    /** Gives the lease back (only the owner's). */
    release(sessionId: string, owner: string): boolean {
      return drop.run(sessionId, owner).changes > 0;
    },
    get(sessionId: string): Lease | undefined {
      const row = get.get(sessionId);
      return row ? toLease(row) : undefined;
    },
  };
}
