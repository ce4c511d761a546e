/**
 * The raw wire log of a session, one frame per seq, in the fixture line format's parts
 * (`t_ms`, `dir`, `msg` as JSON text), so any stored session exports as a replayable fixture.
 * The recorder stores a commit's frames as one block (wire-blocks.ts); `append` and older stores
 * have a row per frame in `wire_log`. Every read merges both by seq.
 */
import { redactFrame, redactMessageText } from '../os/redact.js';
import type { Frame, RawMessage, WireLogLine } from '../protocol/types.js';
import { NO_LIMIT, type SqlDb } from './sql.js';
import { StoreError } from './errors.js';
import { fromJson, isDirection, parseFixture, wireLineText } from './json.js';
import { blockRows, createWireBlocks, type PackedFrames, type RawWireColumns, type WireRow } from './wire-blocks.js';

export type { RawWireColumns, WireRow } from './wire-blocks.js';

export interface WireReadOptions {
  /** First seq to return (inclusive). */
  fromSeq?: number;
  limit?: number;
}

export type WireLogRepo = ReturnType<typeof createWireLogRepo>;

/**
 * Rows per multi-row INSERT on the recorder's path: one statement run (one crossing into SQLite,
 * one parameter bind pass) for this many frames instead of one each. 5 parameters a row stays far
 * below SQLite's 32766-variable limit.
 */
export const WIRE_ROWS_PER_INSERT = 64;

export function createWireLogRepo(db: SqlDb) {
  const insert = db.prepare<[string, number, number, string, string]>(
    'INSERT INTO wire_log (session_id, seq, t_ms, dir, msg) VALUES (?, ?, ?, ?, ?)',
  );
  const last = db.prepare<[string], { s: number | null }>('SELECT MAX(seq) AS s FROM wire_log WHERE session_id = ?');
  const count = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM wire_log WHERE session_id = ?');
  const insertBlock = db.prepare<unknown[]>(
    'INSERT INTO wire_log (session_id, seq, t_ms, dir, msg) VALUES ' +
      Array.from({ length: WIRE_ROWS_PER_INSERT }, () => '(?, ?, ?, ?, ?)').join(', '),
  );
  const block: unknown[] = new Array<unknown>(WIRE_ROWS_PER_INSERT * 5);
  const rows = db.prepare<[string, number, number, number], WireRow>(
    'SELECT seq, t_ms, dir, msg FROM wire_log WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq LIMIT ?',
  );
  const blocks = createWireBlocks(db);

  const appendAll = db.transaction((sessionId: string, frames: readonly (Frame | WireLogLine)[]) => {
    let seq = lastSeq(sessionId);
    for (const f of frames)
      insert.run(sessionId, ++seq, f.t_ms, checkDir(f.dir), redactFrame(f, 'raw' in f ? f.raw : undefined));
    return seq;
  });

  // PostgreSQL: both in one statement, one round trip fewer on each recorder commit (a network
  // store waits for every read; SQLite's two lookups cost nothing to keep apart).
  const lastBoth =
    db.dialect === 'postgres'
      ? db.prepare<[string, string], { s: number | null }>(
          'SELECT GREATEST((SELECT MAX(seq) FROM wire_log WHERE session_id = ?), ' +
            '(SELECT last_seq FROM wire_blocks WHERE session_id = ? ORDER BY last_seq DESC LIMIT 1)) AS s',
        )
      : undefined;

  function lastSeq(sessionId: string): number {
    if (lastBoth) return lastBoth.get(sessionId, sessionId)?.s ?? 0;
    return Math.max(last.get(sessionId)?.s ?? 0, blocks.lastSeq(sessionId));
  }

  /** Rows and blocks merged by seq (their seqs never overlap: both are allocated from lastSeq). */
  function* iterate(sessionId: string, opts: WireReadOptions = {}): Generator<WireRow> {
    let from = opts.fromSeq ?? 0;
    let left = opts.limit === undefined || opts.limit < 0 ? Infinity : opts.limit;
    while (left > 0) {
      const b = blocks.next(sessionId, from);
      // Rows stored before the next block (or after the last one); a statement is not run while another iterates.
      for (const r of rows.iterate(
        sessionId,
        from,
        b ? b.first_seq : Number.MAX_SAFE_INTEGER,
        left === Infinity ? NO_LIMIT : left,
      )) {
        yield r;
        left--;
        from = r.seq + 1;
      }
      if (!b || left <= 0) return;
      for (const r of blockRows(b, from, left)) {
        yield r;
        left--;
      }
      from = b.last_seq + 1;
    }
  }

  return {
    /** @internal The recorder's hot path: one row from parts already prepared (msg as JSON text). */
    insertRaw(sessionId: string, seq: number, t_ms: number, dir: string, msgText: string): void {
      insert.run(sessionId, seq, t_ms, dir, msgText);
    },
    /**
     * @internal The recorder's hot path: `frames` stored after `afterSeq` (seq afterSeq+1…) as one
     * block. Call inside a transaction. Returns the last seq written.
     */
    insertBlock(sessionId: string, afterSeq: number, frames: PackedFrames): number {
      return blocks.insert(sessionId, afterSeq, frames);
    },
    /**
     * @internal `frames` stored after `afterSeq` (seq afterSeq+1…) as a row each, full blocks of
     * WIRE_ROWS_PER_INSERT rows in one statement each, the rest row by row. Call inside a
     * transaction. Returns the last seq written.
     */
    insertRawMany(sessionId: string, afterSeq: number, frames: RawWireColumns): number {
      const { t, dir, line } = frames;
      const n = line.length;
      let seq = afterSeq;
      let i = 0;
      for (; i + WIRE_ROWS_PER_INSERT <= n; i += WIRE_ROWS_PER_INSERT) {
        for (let j = i, k = 0; j < i + WIRE_ROWS_PER_INSERT; j++) {
          block[k++] = sessionId;
          block[k++] = ++seq;
          block[k++] = t[j];
          block[k++] = dir[j];
          block[k++] = line[j];
        }
        insertBlock.run(block);
      }
      for (; i < n; i++) insert.run(sessionId, ++seq, t[i]!, dir[i]!, line[i]!);
      return seq;
    },
    lastSeq,
    count(sessionId: string): number {
      return count.get(sessionId)!.n + blocks.count(sessionId);
    },
    /** Appends frames after the last stored one, in one transaction. Returns the last seq. */
    append(sessionId: string, frames: Frame | WireLogLine | readonly (Frame | WireLogLine)[]): number {
      return appendAll.immediate(sessionId, Array.isArray(frames) ? frames : [frames as Frame]);
    },
    /** Appends every line of fixture NDJSON text; throws on a bad line (nothing is written then). */
    appendFixture(sessionId: string, text: string): number {
      return appendAll.immediate(sessionId, parseFixture(text));
    },
    /** Stored rows with the message still as text (cheap; for export and replay tools). */
    rows(sessionId: string, opts: WireReadOptions = {}): WireRow[] {
      return [...iterate(sessionId, opts)];
    },
    iterate,
    /** The log as WireLogLine objects. A row whose JSON is damaged comes back as `{}` rather than throwing. */
    read(sessionId: string, opts: WireReadOptions = {}): WireLogLine[] {
      const out: WireLogLine[] = [];
      for (const r of iterate(sessionId, opts)) {
        out.push({
          t_ms: r.t_ms,
          dir: isDirection(r.dir) ? r.dir : 'agent->client',
          msg: fromJson<RawMessage>(r.msg) ?? {},
        });
      }
      return out;
    },
    /**
     * Fixture NDJSON (one `{"t_ms","dir","msg"}` line each, trailing newline), built without
     * re-parsing; secrets masked (rows stored before masking existed may still hold them).
     */
    exportNdjson(sessionId: string): string {
      const parts: string[] = [];
      for (const r of iterate(sessionId)) parts.push(wireLineText(r.t_ms, r.dir, redactMessageText(r.msg)));
      return parts.length === 0 ? '' : parts.join('\n') + '\n';
    },
  };
}

function checkDir(dir: unknown): string {
  if (!isDirection(dir)) throw new StoreError('invalid_argument', `bad frame direction ${JSON.stringify(dir)}`);
  return dir;
}
