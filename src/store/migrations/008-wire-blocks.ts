/**
 * The recorder's frames as blocks: one row per commit holding all its frames (their stored lines
 * end to end, with their lengths, times and directions beside them) instead of one row each. A
 * flood commits ~850 frames at a time, and a row per frame cost SQLite about 2 µs each — a third
 * of what recording added to a session's CPU. `wire_log` keeps the rows other writers append
 * (imports, fixtures) and every row stored before; readers merge both by seq (wire-log.ts).
 */
import type { Database } from 'better-sqlite3';

export const name = 'wire-blocks';

export function up(db: Database): void {
  db.exec(`
    CREATE TABLE wire_blocks (
      session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      last_seq   INTEGER NOT NULL,             -- seq of its last frame (keyed by it: "the block holding seq s" is one seek)
      first_seq  INTEGER NOT NULL,             -- seq of its first frame; frames first_seq…last_seq
      t_ms       BLOB NOT NULL,                -- float64 little-endian per frame
      dirs       BLOB NOT NULL,                -- one byte per frame: 0 agent->client, 1 client->agent
      lens       BLOB NOT NULL,                -- uint32 little-endian per frame: its line's length in bytes
      msgs       BLOB NOT NULL,                -- the frames' stored lines (UTF-8), end to end
      PRIMARY KEY (session_id, last_seq),
      CHECK (first_seq <= last_seq)
    );
  `);
}
