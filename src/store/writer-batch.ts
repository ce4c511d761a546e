/**
 * One commit of the recorder, in a form that crosses to the writer thread cheaply: frames and
 * entries as parallel arrays of strings and numbers (no objects to clone), the rare rest (turns,
 * audit rows, thread meta, title, activity) as one JSON text. The same function commits it on
 * the main connection or on the writer thread's own (writer-worker.ts).
 */
import type { Db } from './db.js';
import { createEntriesRepo, type EntriesRepo, type ThreadMeta } from './entries.js';
import { createPermissionsRepo, type AuditInput, type PermissionsRepo } from './permissions.js';
import { createSessionsRepo, type SessionsRepo } from './sessions.js';
import { createTurnsRepo, type TurnsRepo } from './turns.js';
import { createWireLogRepo, type RawWireColumns, type WireLogRepo } from './wire-log.js';

export type BatchTurn =
  | { kind: 'start'; turnId: string; prompt: unknown[]; at: number }
  | { kind: 'end'; turnId: string; stopReason: string; usage?: unknown; error?: unknown; at: number; durationMs: number };

/** What is rare in a batch: carried as JSON text. */
export interface BatchRest {
  turns: BatchTurn[];
  audits: AuditInput[];
  meta?: ThreadMeta;
  title?: string;
  touchedAt?: number;
}

export interface WriterBatch {
  /** The stored session (Talaria id). */
  key: string;
  /** Columns on the main thread; packed (packFrames) for the writer thread. */
  frames: RawWireColumns | PackedFrames;
  /** Entries, serialised: index, id, kind, turn id (or null), JSON text, each a column. */
  entries: EntryColumns;
  /** BatchRest as JSON, or '' when there is none. */
  rest: string;
}

/**
 * Frames as they cross to the writer thread: every line in one string with their lengths beside
 * it, times and directions in typed arrays. Cloning ~850 separate strings per tick cost the main
 * thread about 1.7 µs a frame; one string and three buffers cost a copy.
 */
export interface PackedFrames {
  text: string;
  len: Uint32Array;
  t: Float64Array;
  /** Index into DIRECTIONS; an unknown direction is kept in `dirs` by position. */
  dir: Uint8Array;
  odd?: Record<number, string>;
}

const DIRECTIONS = ['agent->client', 'client->agent'] as const;

export function packFrames(c: RawWireColumns): PackedFrames {
  const n = c.line.length;
  const len = new Uint32Array(n);
  const dir = new Uint8Array(n);
  let odd: Record<number, string> | undefined;
  for (let i = 0; i < n; i++) {
    len[i] = c.line[i]!.length;
    const d = c.dir[i]!;
    if (d === DIRECTIONS[0]) dir[i] = 0;
    else if (d === DIRECTIONS[1]) dir[i] = 1;
    else (odd ??= {})[i] = d; // the wire log's CHECK refuses it, as it would inline
  }
  return { text: c.line.join(''), len, t: Float64Array.from(c.t), dir, ...(odd ? { odd } : {}) };
}

export function unpackFrames(p: RawWireColumns | PackedFrames): RawWireColumns {
  if (!('text' in p)) return p;
  const n = p.len.length;
  const out: RawWireColumns = { t: new Array<number>(n), dir: new Array<string>(n), line: new Array<string>(n) };
  for (let i = 0, at = 0; i < n; i++) {
    const l = p.len[i]!;
    out.line[i] = p.text.slice(at, at + l);
    at += l;
    out.t[i] = p.t[i]!;
    out.dir[i] = p.odd?.[i] ?? DIRECTIONS[p.dir[i]!]!;
  }
  return out;
}

export interface EntryColumns {
  index: number[];
  id: string[];
  kind: string[];
  turnId: (string | null)[];
  json: string[];
  /** Text appended to stored entries since their last full write: index, entry id, text. */
  tailIndex: number[];
  tailId: string[];
  tailText: string[];
}

/** The repositories a commit writes through (a Store has them; the writer thread makes its own). */
export interface BatchRepos {
  db: Db;
  wire: Pick<WireLogRepo, 'insertRawMany' | 'lastSeq'>;
  entries: Pick<EntriesRepo, 'upsertJson' | 'appendTail' | 'setMeta'>;
  turns: Pick<TurnsRepo, 'start' | 'end'>;
  permissions: Pick<PermissionsRepo, 'audit'>;
  sessions: Pick<SessionsRepo, 'setTitle' | 'touch'>;
}

export function batchRepos(db: Db, now: () => number = Date.now): BatchRepos {
  return {
    db,
    wire: createWireLogRepo(db),
    entries: createEntriesRepo(db, now),
    turns: createTurnsRepo(db),
    permissions: createPermissionsRepo(db, now),
    sessions: createSessionsRepo(db, now),
  };
}

/** The commit of a batch (one IMMEDIATE transaction, prepared once); returns the session's last seq. */
export function batchCommitter(r: BatchRepos): (b: WriterBatch) => number {
  const tx = r.db.transaction((b: WriterBatch): number => {
    const key = b.key;
    // Under the write lock: the last seq on disk is the last seq, whoever wrote it.
    const seq = r.wire.insertRawMany(key, r.wire.lastSeq(key), unpackFrames(b.frames));
    const at = Date.now();
    const e = b.entries;
    for (let i = 0; i < e.index.length; i++) r.entries.upsertJson(key, e.index[i]!, e.id[i]!, e.kind[i]!, e.turnId[i]!, e.json[i]!, at);
    for (let i = 0; i < e.tailIndex.length; i++) r.entries.appendTail(key, e.tailIndex[i]!, e.tailId[i]!, e.tailText[i]!);
    if (b.rest === '') return seq;
    const rest = JSON.parse(b.rest) as BatchRest;
    for (const t of rest.turns) {
      if (t.kind === 'start') r.turns.start(key, { turnId: t.turnId, prompt: t.prompt, startedAt: t.at });
      else r.turns.end(key, { turnId: t.turnId, stopReason: t.stopReason, usage: t.usage, error: t.error, endedAt: t.at, durationMs: t.durationMs });
    }
    for (const a of rest.audits) r.permissions.audit(a, key);
    if (rest.meta !== undefined) r.entries.setMeta(key, rest.meta, at);
    if (rest.title !== undefined) r.sessions.setTitle(key, rest.title, at);
    if (rest.touchedAt !== undefined) r.sessions.touch(key, rest.touchedAt);
    return seq;
  });
  return (b) => tx.immediate(b);
}
