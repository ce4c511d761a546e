/**
 * Frames stored as blocks (migration 008): one row per recorder commit. Encoding and decoding
 * only; wire-log.ts merges blocks with the per-frame rows of `wire_log` by seq.
 */
import type { SqlDb } from './sql.js';
import { StoreError } from './errors.js';

/** One stored frame as the wire log returns it. */
export interface WireRow {
  seq: number;
  t_ms: number;
  dir: string;
  /** The message as stored JSON text. */
  msg: string;
}

/** Frames as the recorder prepares them (msg already the stored JSON text), one column each. */
export interface RawWireColumns {
  t: number[];
  dir: string[];
  line: string[];
}

/**
 * Frames as one block: every line's UTF-8 bytes end to end with their byte lengths beside them,
 * times and directions in typed arrays. Encoding each line straight into one buffer cost a third
 * of joining the lines and having SQLite convert the joined text. It is also how a batch crosses
 * to the writer thread (cloning ~850 separate strings per tick cost the main thread about 1.7 µs
 * a frame; four buffers cost a copy).
 */
export interface PackedFrames {
  bytes: Uint8Array;
  len: Uint32Array;
  t: Float64Array;
  /** Index into DIRECTIONS; an unknown direction is kept in `odd` by position. */
  dir: Uint8Array;
  odd?: Record<number, string>;
}

export const DIRECTIONS = ['agent->client', 'client->agent'] as const;

/** A line longer than this is measured before it is encoded, so it never needs room for 3× its size. */
const ONE_PASS_CHARS = 1 << 20;

/** Frames given as columns, packed (FramePacker does the work: one way to encode a batch). */
export function packFrames(c: RawWireColumns): PackedFrames {
  const p = new FramePacker();
  for (let i = 0; i < c.line.length; i++) p.add(c.t[i]!, c.dir[i]!, c.line[i]!);
  return p.take();
}

/** Room a FramePacker keeps between batches (more is dropped, and made again when needed). */
const KEEP_ROOM = 1 << 20;

/**
 * Frames packed as they arrive (what a recorder holds until its commit): each line is encoded
 * into one growing buffer at once, so a batch waits as bytes off the heap, not as a thousand
 * strings that every young-generation collection before the commit copies (and promotes).
 * `take()` gives the batch as packFrames would, and starts the next.
 */
export class FramePacker {
  private room: Buffer | undefined;
  private at = 0;
  private n = 0;
  private len = new Uint32Array(64);
  private t = new Float64Array(64);
  private dir = new Uint8Array(64);
  private odd: Record<number, string> | undefined;

  get count(): number {
    return this.n;
  }

  /** Encodes `line` at once into room for the worst case (3 bytes a UTF-16 unit); the write gives its length. */
  add(t: number, dir: string, line: string): void {
    const i = this.n;
    if (i === this.len.length) this.growColumns();
    // Room for the worst case (3 bytes a UTF-16 unit), or the exact size of a huge line.
    const need = this.at + (line.length <= ONE_PASS_CHARS ? line.length * 3 : Buffer.byteLength(line, 'utf8'));
    if (this.room === undefined || need > this.room.length) this.growRoom(need);
    const written = this.room!.write(line, this.at, 'utf8');
    this.len[i] = written;
    this.at += written;
    this.t[i] = t;
    if (dir === DIRECTIONS[0]) this.dir[i] = 0;
    else if (dir === DIRECTIONS[1]) this.dir[i] = 1;
    else (this.odd ??= {})[i] = dir; // refused when stored, as the wire log's CHECK refuses it
    this.n = i + 1;
  }

  /** The frames added since the last take, in memory of their own. */
  take(): PackedFrames {
    const n = this.n;
    const out: PackedFrames = {
      bytes: this.ownBytes(),
      len: this.len.slice(0, n),
      t: this.t.slice(0, n),
      dir: this.dir.slice(0, n),
      ...(this.odd ? { odd: this.odd } : {}),
    };
    this.clear();
    return out;
  }

  /**
   * The bytes added since the last take, copied into memory of their own size: never
   * Buffer.from(view), which takes small copies from the shared pool (under 4 KiB on Node 20,
   * under 32 KiB since Node 24 raised the pool to 64 KiB), so posting the batch to the writer
   * thread would clone the whole pool, other buffers' bytes included.
   */
  private ownBytes(): Buffer {
    const out = Buffer.allocUnsafeSlow(this.at);
    this.room?.copy(out, 0, 0, this.at);
    return out;
  }

  /** Drops the frames added since the last take. */
  clear(): void {
    this.n = 0;
    this.at = 0;
    this.odd = undefined;
    if (this.room !== undefined && this.room.length > KEEP_ROOM) this.room = undefined;
  }

  private growRoom(need: number): void {
    const next = Buffer.allocUnsafeSlow(Math.max(need, 16 * 1024, (this.room?.length ?? 0) * 2));
    this.room?.copy(next, 0, 0, this.at);
    this.room = next;
  }

  private growColumns(): void {
    const size = this.len.length * 2;
    const len = new Uint32Array(size);
    len.set(this.len);
    this.len = len;
    const t = new Float64Array(size);
    t.set(this.t);
    this.t = t;
    const dir = new Uint8Array(size);
    dir.set(this.dir);
    this.dir = dir;
  }
}

export function unpackFrames(p: RawWireColumns | PackedFrames): RawWireColumns {
  if (!('bytes' in p)) return p;
  const n = p.len.length;
  const buf = asBuffer(p.bytes);
  const out: RawWireColumns = { t: new Array<number>(n), dir: new Array<string>(n), line: new Array<string>(n) };
  for (let i = 0, at = 0; i < n; i++) {
    const l = p.len[i]!;
    out.line[i] = buf.toString('utf8', at, at + l);
    at += l;
    out.t[i] = p.t[i]!;
    out.dir[i] = p.odd?.[i] ?? DIRECTIONS[p.dir[i]!]!;
  }
  return out;
}

/** A stored block as read back. */
export interface BlockRow {
  first_seq: number;
  last_seq: number;
  t_ms: Buffer;
  dirs: Buffer;
  lens: Buffer;
  msgs: Buffer;
}

/** A Buffer over the same memory (a typed array that crossed to the writer thread is a plain one). */
const asBuffer = (a: ArrayBufferView): Buffer =>
  Buffer.isBuffer(a) ? a : Buffer.from(a.buffer, a.byteOffset, a.byteLength);

export function createWireBlocks(db: SqlDb) {
  const insert = db.prepare<[string, number, number, Buffer, Buffer, Buffer, Buffer]>(
    'INSERT INTO wire_blocks (session_id, last_seq, first_seq, t_ms, dirs, lens, msgs) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const last = db.prepare<[string], { s: number }>(
    'SELECT last_seq AS s FROM wire_blocks WHERE session_id = ? ORDER BY last_seq DESC LIMIT 1',
  );
  const count = db.prepare<[string], { n: number | null }>(
    'SELECT SUM(last_seq - first_seq + 1) AS n FROM wire_blocks WHERE session_id = ?',
  );
  /** The first block holding a seq ≥ the one asked for. */
  const next = db.prepare<[string, number], BlockRow>(
    'SELECT first_seq, last_seq, t_ms, dirs, lens, msgs FROM wire_blocks WHERE session_id = ? AND last_seq >= ? ORDER BY last_seq LIMIT 1',
  );

  return {
    /** Stores `frames` as one block after `afterSeq` (call inside a transaction); returns the last seq. */
    insert(sessionId: string, afterSeq: number, frames: PackedFrames): number {
      const n = frames.len.length;
      if (n === 0) return afterSeq;
      if (frames.odd) {
        const bad = Object.values(frames.odd)[0];
        throw new StoreError('invalid_argument', `bad frame direction ${JSON.stringify(bad)}`);
      }
      // The typed arrays are this machine's order; the column says little-endian (every platform Node runs on).
      insert.run(
        sessionId,
        afterSeq + n,
        afterSeq + 1,
        asBuffer(frames.t),
        asBuffer(frames.dir),
        asBuffer(frames.len),
        asBuffer(frames.bytes),
      );
      return afterSeq + n;
    },
    lastSeq(sessionId: string): number {
      return last.get(sessionId)?.s ?? 0;
    },
    count(sessionId: string): number {
      return count.get(sessionId)?.n ?? 0;
    },
    next(sessionId: string, seq: number): BlockRow | undefined {
      return next.get(sessionId, seq);
    },
  };
}

/** The frames of block `b` from seq `from` on, at most `limit` of them, as rows. */
export function* blockRows(b: BlockRow, from: number, limit: number): Generator<WireRow> {
  const n = b.last_seq - b.first_seq + 1;
  let at = 0;
  let i = 0;
  for (; i < n && b.first_seq + i < from; i++) at += b.lens.readUInt32LE(i * 4);
  for (let yielded = 0; i < n && yielded < limit; i++, yielded++) {
    const l = b.lens.readUInt32LE(i * 4);
    const dir = DIRECTIONS[b.dirs[i]!] ?? DIRECTIONS[0];
    yield { seq: b.first_seq + i, t_ms: b.t_ms.readDoubleLE(i * 8), dir, msg: b.msgs.toString('utf8', at, at + l) };
    at += l;
  }
}
