/**
 * Thread entries (upserted by position as they change in place) and the rest of a thread snapshot
 * (plan, commands, mode, title, context…) as one JSON row. A streamed message may also have tails
 * (migration 007): text appended since its row was written, concatenated onto `text` on read;
 * every full write of a row drops its tails. The store keeps plain JSON; the caller
 * rebuilds a live Thread with `threadFromSnapshot` (the store may not import thread code at run time).
 */
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Entry } from '../thread/types.js';
import type { ThreadSnapshot } from '../thread/snapshot.js';
import type { SqlDb } from './sql.js';
import { fromJson } from './json.js';

/** A snapshot without its entries (they live in their own rows). */
export type ThreadMeta = Omit<ThreadSnapshot, 'entries'>;

/**
 * A row this long or longer is stored deflated (a BLOB in `json`): a huge prompt or a long reply
 * is already in the wire log, and the thread's copy of it then costs a fraction of its bytes.
 * Fastest level: it runs on the recorder's commit; text deflates ~3× at it all the same.
 */
export const DEFLATE_FROM = 64 * 1024;

/** What goes in `json`: the text, or past DEFLATE_FROM its deflated bytes. */
export function packedJson(json: string): string | Buffer {
  return json.length < DEFLATE_FROM ? json : deflateRawSync(json, { level: constants.Z_BEST_SPEED });
}

/** A `json` cell as text (a BLOB is a deflated row). */
const unpacked = (cell: string | Buffer): string =>
  typeof cell === 'string' ? cell : inflateRawSync(cell).toString('utf8');

export interface IndexedEntry {
  index: number;
  entry: Entry;
}

export type EntriesRepo = ReturnType<typeof createEntriesRepo>;

export function createEntriesRepo(db: SqlDb, now: () => number = Date.now) {
  // PostgreSQL compresses a big value itself (TOAST), and a column cannot be TEXT and BYTEA by turns.
  const pack = db.dialect === 'postgres' ? (json: string) => json : packedJson;
  const upsert = db.prepare(
    `INSERT INTO entries (session_id, idx, entry_id, kind, turn_id, json, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (session_id, idx) DO UPDATE SET entry_id = excluded.entry_id, kind = excluded.kind,
       turn_id = excluded.turn_id, json = excluded.json, updated_at = excluded.updated_at`,
  );
  const list = db.prepare<[string], { idx: number; json: string | Buffer }>(
    'SELECT idx, json FROM entries WHERE session_id = ? ORDER BY idx',
  );
  const count = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM entries WHERE session_id = ?');
  const userNumber = db.prepare<[string, string, string], { n: number }>(
    `SELECT COUNT(*) AS n FROM entries WHERE session_id = ? AND kind = 'user_message'
       AND idx <= (SELECT idx FROM entries WHERE session_id = ? AND entry_id = ? AND kind = 'user_message')`,
  );
  const trim = db.prepare('DELETE FROM entries WHERE session_id = ? AND idx >= ?');
  const getMeta = db.prepare<[string], { json: string }>('SELECT json FROM threads WHERE session_id = ?');
  const putMeta = db.prepare(
    `INSERT INTO threads (session_id, json, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at`,
  );
  const dropMeta = db.prepare('DELETE FROM threads WHERE session_id = ?');
  const tails = db.prepare<[string], { idx: number; entry_id: string; text: string }>(
    'SELECT idx, entry_id, text FROM entry_tails WHERE session_id = ? ORDER BY idx, id',
  );
  const addTail = db.prepare<[string, number, string, string]>(
    'INSERT INTO entry_tails (session_id, idx, entry_id, text) VALUES (?, ?, ?, ?)',
  );
  const dropTails = db.prepare<[string, number]>('DELETE FROM entry_tails WHERE session_id = ? AND idx = ?');
  const anyTail = db.prepare<[string], { x: number }>('SELECT 1 AS x FROM entry_tails WHERE session_id = ? LIMIT 1');
  const trimTails = db.prepare<[string, number]>('DELETE FROM entry_tails WHERE session_id = ? AND idx >= ?');

  function put(sessionId: string, index: number, entry: Entry, at: number): void {
    upsert.run(sessionId, index, entry.id, entry.kind, entry.turnId ?? null, pack(JSON.stringify(entry)), at);
    dropTails.run(sessionId, index);
  }

  /** The stored rows' entries with their tails appended (a tail of another entry id is stale: ignored). */
  function withTails(sessionId: string, rows: { idx: number; json: string | Buffer }[]): Entry[] {
    const out = rows.map((r) => {
      let json: string | Buffer = r.json;
      try {
        json = unpacked(r.json);
      } catch {
        // Not deflate: damaged, and kept as it is below.
      }
      return (
        (typeof json === 'string' ? fromJson<Entry>(json) : undefined) ??
        ({ id: 'e' + r.idx, kind: 'unknown', sessionUpdate: 'damaged_row', raw: json } as Entry)
      );
    });
    let at = 0;
    for (const t of tails.iterate(sessionId)) {
      while (at < rows.length && rows[at]!.idx < t.idx) at++;
      if (at === rows.length) break;
      const e = out[at]! as { id: string; text?: unknown };
      if (rows[at]!.idx === t.idx && e.id === t.entry_id && typeof e.text === 'string') e.text += t.text;
    }
    return out;
  }

  const saveSnapshot = db.transaction((sessionId: string, snap: ThreadSnapshot) => {
    const at = now();
    snap.entries.forEach((e, i) => put(sessionId, i, e, at));
    trim.run(sessionId, snap.entries.length);
    trimTails.run(sessionId, snap.entries.length);
    const { entries: _entries, ...meta } = snap;
    putMeta.run(sessionId, JSON.stringify(meta), at);
  });

  const upsertMany = db.transaction((sessionId: string, items: readonly IndexedEntry[]) => {
    const at = now();
    for (const it of items) put(sessionId, it.index, it.entry, at);
  });

  const repo = {
    /** Inserts or replaces the entry at `index`. */
    upsert(sessionId: string, index: number, entry: Entry, at = now()): void {
      put(sessionId, index, entry, at);
    },
    /**
     * @internal The recorder's writer: an entry already serialised (its id, kind and turn id beside
     * it). Its tails go too unless the caller knows the session has none (hasTails, same transaction).
     */
    upsertJson(
      sessionId: string,
      index: number,
      id: string,
      kind: string,
      turnId: string | null,
      json: string,
      at: number,
      tails = true,
    ): void {
      upsert.run(sessionId, index, id, kind, turnId, pack(json), at);
      if (tails) dropTails.run(sessionId, index);
    },
    /** @internal Whether any entry of the session has tails (one probe per commit instead of a DELETE per row). */
    hasTails(sessionId: string): boolean {
      return anyTail.get(sessionId) !== undefined;
    },
    /** @internal The recorder's writer: `text` was appended to the stored entry `id` at `index` (its row is not rewritten). */
    appendTail(sessionId: string, index: number, id: string, text: string): void {
      addTail.run(sessionId, index, id, text);
    },
    upsertMany(sessionId: string, items: readonly IndexedEntry[]): void {
      upsertMany.immediate(sessionId, items);
    },
    /** Entries in thread order. A damaged row comes back as an `unknown` entry, never dropped. */
    list(sessionId: string): Entry[] {
      return withTails(sessionId, list.all(sessionId));
    },
    count(sessionId: string): number {
      return count.get(sessionId)!.n;
    },
    /** Which user message of the thread entry `entryId` is (1 = the first), without reading the entries; undefined when it is none. */
    userMessageNumber(sessionId: string, entryId: string): number | undefined {
      const n = userNumber.get(sessionId, sessionId, entryId)!.n;
      return n > 0 ? n : undefined;
    },
    /** Removes entries and thread meta (derived state: the wire log stays, so history can be replayed). */
    clear(sessionId: string): void {
      db.transaction(() => {
        trim.run(sessionId, 0);
        trimTails.run(sessionId, 0);
        dropMeta.run(sessionId);
      }).immediate();
    },
    getMeta(sessionId: string): ThreadMeta | undefined {
      return fromJson<ThreadMeta>(getMeta.get(sessionId)?.json);
    },
    setMeta(sessionId: string, meta: ThreadMeta, at = now()): void {
      putMeta.run(sessionId, JSON.stringify(meta), at);
    },
    /** Replaces the stored thread with `snap` (entries upserted, extra rows trimmed), in one transaction. */
    saveSnapshot(sessionId: string, snap: ThreadSnapshot): void {
      saveSnapshot.immediate(sessionId, snap);
    },
    /**
     * The stored thread as a ThreadSnapshot (feed it to `threadFromSnapshot`), or undefined when
     * nothing was stored for the session.
     */
    loadSnapshot(sessionId: string): ThreadSnapshot | undefined {
      const meta = repo.getMeta(sessionId);
      const entries = repo.list(sessionId);
      if (!meta && entries.length === 0) return undefined;
      return { plan: null, availableCommands: [], context: {}, ...meta, entries };
    },
  };
  return repo;
}
