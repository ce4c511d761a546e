/**
 * One commit of the recorder, in a form that crosses to the writer thread cheaply: frames and
 * entries as parallel arrays of strings and numbers (no objects to clone), the rare rest (turns,
 * audit rows, thread meta, title, activity) as one JSON text. The same function commits it on
 * the main connection or on the writer thread's own (writer-worker.ts).
 */
import type { SqlDb } from './sql.js';
import { createEntriesRepo, type EntriesRepo, type ThreadMeta } from './entries.js';
import { createPermissionsRepo, type AuditInput, type PermissionsRepo } from './permissions.js';
import { createSessionsRepo, type SessionsRepo } from './sessions.js';
import { createTurnsRepo, type TurnsRepo } from './turns.js';
import { packFrames, type PackedFrames, type RawWireColumns } from './wire-blocks.js';
import { createWireLogRepo, type WireLogRepo } from './wire-log.js';

export { packFrames, unpackFrames, type PackedFrames } from './wire-blocks.js';

export type BatchTurn =
  | { kind: 'start'; turnId: string; prompt: unknown[]; at: number }
  | {
      kind: 'end';
      turnId: string;
      stopReason: string;
      usage?: unknown;
      error?: unknown;
      at: number;
      durationMs: number;
    };

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

/** A batch's entry columns with nothing in them (what a recorder fills; a batch of frames only). */
export const emptyEntryColumns = (): EntryColumns => ({
  index: [],
  id: [],
  kind: [],
  turnId: [],
  json: [],
  tailIndex: [],
  tailId: [],
  tailText: [],
});

/** The repositories a commit writes through (a Store has them; the writer thread makes its own). */
export interface BatchRepos {
  db: SqlDb;
  wire: Pick<WireLogRepo, 'insertBlock' | 'lastSeq'>;
  entries: Pick<EntriesRepo, 'upsertJson' | 'hasTails' | 'appendTail' | 'setMeta'>;
  turns: Pick<TurnsRepo, 'start' | 'end'>;
  permissions: Pick<PermissionsRepo, 'audit'>;
  sessions: Pick<SessionsRepo, 'setTitle' | 'touch'>;
}

export function batchRepos(db: SqlDb, now: () => number = Date.now): BatchRepos {
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
    const seq = r.wire.insertBlock(key, r.wire.lastSeq(key), 'bytes' in b.frames ? b.frames : packFrames(b.frames));
    const at = Date.now();
    const e = b.entries;
    // Under the write lock: no tails now means no row written here has any to drop.
    const tails = e.index.length > 0 && r.entries.hasTails(key);
    for (let i = 0; i < e.index.length; i++)
      r.entries.upsertJson(key, e.index[i]!, e.id[i]!, e.kind[i]!, e.turnId[i]!, e.json[i]!, at, tails);
    for (let i = 0; i < e.tailIndex.length; i++)
      r.entries.appendTail(key, e.tailIndex[i]!, e.tailId[i]!, e.tailText[i]!);
    if (b.rest === '') return seq;
    const rest = JSON.parse(b.rest) as BatchRest;
    for (const t of rest.turns) {
      if (t.kind === 'start') r.turns.start(key, { turnId: t.turnId, prompt: t.prompt, startedAt: t.at });
      else
        r.turns.end(key, {
          turnId: t.turnId,
          stopReason: t.stopReason,
          usage: t.usage,
          error: t.error,
          endedAt: t.at,
          durationMs: t.durationMs,
        });
    }
    for (const a of rest.audits) r.permissions.audit(a, key);
    if (rest.meta !== undefined) r.entries.setMeta(key, rest.meta, at);
    if (rest.title !== undefined) r.sessions.setTitle(key, rest.title, at);
    if (rest.touchedAt !== undefined) r.sessions.touch(key, rest.touchedAt);
    return seq;
  });
  return (b) => tx.immediate(b);
}
