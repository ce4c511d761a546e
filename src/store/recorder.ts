/**
 * Writes a live session into the store as it happens: every frame, entry, turn and permission
 * decision.
 *
 * Batching: work is queued and committed in ONE transaction per event-loop tick (setImmediate),
 * immediately when `maxBatch` frames are pending, and synchronously on every `turn.ended`. With
 * WAL each commit survives process death, so a SIGKILL loses at most the frames that arrived in
 * the current tick — nothing is ever held longer than that. Entry updates are coalesced per tick
 * (a streamed reply updates one entry per chunk; only its last state in the tick is written).
 */
import { redactFrame } from '../protocol/redact.js';
import type { Frame } from '../protocol/types.js';
import type { Logger } from '../protocol/types.js';
import type { Entry } from '../thread/types.js';
import type { SessionEvent } from '../session/events.js';
import type { PermissionDecisionEvent } from '../permission/types.js';
import type { ThreadMeta } from './entries.js';
import { StoreError, storeErrorFrom } from './errors.js';
import type { AuditInput } from './permissions.js';
import type { Store } from './index.js';

export interface RecorderOptions {
  /** The Talaria session id (a row in `sessions`) everything is recorded under. */
  sessionKey: string;
  /** When set, events of other agent sessions are ignored (for a client-wide subscription). */
  agentSessionId?: string;
  /** Commit at once when this many frames are pending (default 256). */
  maxBatch?: number;
  /** Start the stored thread afresh (a new live Thread restarts entry indexes at 0). Default false. */
  resetThread?: boolean;
  logger?: Logger;
  /** After each commit (the SIGKILL test and progress displays use it). */
  onFlush?: (info: FlushInfo) => void;
  /** A batch could not be written (it is dropped; the error is also logged). */
  onError?: (err: Error) => void;
}

export interface FlushInfo {
  /** Frames committed by this flush. */
  frames: number;
  /** Seq of the last committed frame. */
  lastSeq: number;
  /** Entry rows written by this flush (after coalescing). */
  entries: number;
}

export interface Recorder {
  /** The frame tap: pass as ClientOptions.onFrame. */
  onFrame(frame: Frame): void;
  /** The event tap: pass to session.subscribe / client.subscribe. */
  onEvent(ev: SessionEvent): void;
  /** Richer audit rows (subject, option kind): pass as ClientOptions.onPermissionDecision. Once used, it replaces the event-based audit. */
  onPermissionDecision(ev: PermissionDecisionEvent): void;
  /** Commits everything pending now. */
  flush(): void;
  /** Flushes and stops recording. */
  close(): void;
  /** Seq of the last committed frame. */
  readonly lastSeq: number;
  /** Frames queued but not committed yet. */
  readonly pendingFrames: number;
}

type PendingTurn =
  | { kind: 'start'; turnId: string; prompt: unknown[]; at: number }
  | { kind: 'end'; turnId: string; stopReason: string; usage?: unknown; error?: unknown; at: number; durationMs: number };

export function createRecorder(store: Store, opts: RecorderOptions): Recorder {
  const key = opts.sessionKey;
  if (store.readOnly) throw storeErrorFrom(Object.assign(new Error(store.readOnlyReason ?? 'opened read-only'), { code: 'SQLITE_READONLY' }), store.path);
  if (!store.sessions.get(key)) throw new StoreError('not_found', `no stored session ${key}`, { sessionId: key });
  const maxBatch = Math.max(1, opts.maxBatch ?? 256);
  const log = opts.logger;
  const insertFrame = store.wire.insertRaw;

  if (opts.resetThread) store.entries.clear(key);
  let committedSeq = store.wire.lastSeq(key);
  let seq = committedSeq;
  let meta: ThreadMeta = store.entries.getMeta(key) ?? { plan: null, availableCommands: [], context: {} };

  // Pending work, all committed together.
  let frames: { seq: number; t: number; dir: string; msg: string }[] = [];
  let entries = new Map<number, Entry>();
  let turns: PendingTurn[] = [];
  let audits = new Map<string, AuditInput>();
  let auditSeq = 0;
  let metaDirty = false;
  let title: string | undefined;
  let touchedAt: number | undefined;
  let scheduled: NodeJS.Immediate | undefined;
  let closed = false;
  let richAudit = false;

  const commit = store.db.transaction(() => {
    for (const f of frames) insertFrame(key, f.seq, f.t, f.dir, f.msg);
    const at = Date.now();
    for (const [index, entry] of entries) store.entries.upsert(key, index, entry, at);
    for (const t of turns) {
      if (t.kind === 'start') store.turns.start(key, { turnId: t.turnId, prompt: t.prompt, startedAt: t.at });
      else store.turns.end(key, { turnId: t.turnId, stopReason: t.stopReason, usage: t.usage, error: t.error, endedAt: t.at, durationMs: t.durationMs });
    }
    for (const a of audits.values()) store.permissions.audit(a, key);
    if (metaDirty) store.entries.setMeta(key, meta, at);
    if (title !== undefined) store.sessions.setTitle(key, title, at);
    if (touchedAt !== undefined) store.sessions.touch(key, touchedAt);
  });

  function flush(): void {
    if (scheduled) {
      clearImmediate(scheduled);
      scheduled = undefined;
    }
    if (frames.length === 0 && entries.size === 0 && turns.length === 0 && audits.size === 0 && !metaDirty && title === undefined && touchedAt === undefined) return;
    const n = frames.length;
    const nEntries = entries.size;
    const last = seq;
    try {
      if (store.closed) throw new StoreError('closed', 'the store is closed');
      commit();
      committedSeq = last;
    } catch (err) {
      // Dropped, not retried: holding batches would grow memory without bound while the disk is sick.
      const e = err instanceof Error ? err : new Error(String(err));
      log?.error('store: recorder batch lost', { sessionId: key, frames: n, error: e.message });
      reset();
      notify(opts.onError, e);
      return;
    }
    reset();
    notify(opts.onFlush, { frames: n, lastSeq: last, entries: nEntries });
  }

  /** Callbacks run on the transport's stack or in a setImmediate: a throw must not escape there. */
  function notify<T>(fn: ((v: T) => void) | undefined, v: T): void {
    if (!fn) return;
    try {
      fn(v);
    } catch (err) {
      log?.error('store: recorder callback threw', { sessionId: key, error: String(err) });
    }
  }

  function reset(): void {
    frames = [];
    entries = new Map();
    turns = [];
    audits = new Map();
    metaDirty = false;
    title = undefined;
    touchedAt = undefined;
  }

  function schedule(): void {
    if (scheduled === undefined) scheduled = setImmediate(flush);
  }

  function mine(agentSessionId: string | undefined): boolean {
    return opts.agentSessionId === undefined || agentSessionId === opts.agentSessionId;
  }

  const rec: Recorder = {
    onFrame(frame) {
      if (closed) return;
      frames.push({ seq: ++seq, t: frame.t_ms, dir: frame.dir, msg: redactFrame(frame) });
      if (frames.length >= maxBatch) flush();
      else schedule();
    },

    onEvent(ev) {
      if (closed || !mine(ev.sessionId)) return;
      switch (ev.type) {
        case 'entry.added':
        case 'entry.updated':
          entries.set(ev.index, ev.entry as Entry);
          break;
        case 'turn.started':
          turns.push({ kind: 'start', turnId: ev.turnId, prompt: ev.prompt, at: ev.at });
          meta = { ...meta, openTurnId: ev.turnId };
          metaDirty = true;
          touchedAt = ev.at;
          break;
        case 'turn.ended': {
          const t: PendingTurn = { kind: 'end', turnId: ev.turnId, stopReason: ev.stopReason, at: ev.at, durationMs: ev.durationMs };
          if (ev.usage !== undefined) t.usage = ev.usage;
          if (ev.error !== undefined) t.error = ev.error;
          turns.push(t);
          if (meta.openTurnId === ev.turnId) {
            const { openTurnId: _done, ...rest } = meta;
            meta = rest;
            metaDirty = true;
          }
          touchedAt = ev.at;
          flush(); // on disk before later listeners (the turn's result) hear of it
          return;
        }
        case 'session.closed':
          flush();
          return;
        case 'permission.decided':
          if (richAudit) return;
          audits.set(ev.requestKey || 'a' + ++auditSeq, {
            requestKey: ev.requestKey,
            sessionId: ev.sessionId,
            toolCallId: ev.toolCallId,
            outcome: ev.outcome,
            decidedBy: ev.decidedBy,
            ...(ev.answeredBy !== undefined ? { answeredBy: ev.answeredBy } : {}),
            ...(ev.rule !== undefined ? { rule: ev.rule } : {}),
            reason: ev.reason,
            at: ev.at,
          });
          break;
        case 'plan.updated':
          meta = { ...meta, plan: ev.plan as ThreadMeta['plan'] };
          metaDirty = true;
          break;
        case 'commands.updated':
          meta = { ...meta, availableCommands: ev.commands };
          metaDirty = true;
          break;
        case 'mode.updated':
          meta = { ...meta, currentModeId: ev.modeId };
          metaDirty = true;
          break;
        case 'config.updated':
          meta = { ...meta, configOptions: ev.configOptions };
          metaDirty = true;
          break;
        case 'context.updated':
          meta = { ...meta, context: ev.context as ThreadMeta['context'] };
          metaDirty = true;
          break;
        case 'info.updated':
          meta = { ...meta, ...(ev.title !== undefined ? { title: ev.title } : {}), ...(ev.updatedAt !== undefined ? { updatedAt: ev.updatedAt } : {}) };
          metaDirty = true;
          if (ev.title !== undefined) title = ev.title;
          break;
        default:
          return; // state, queue, catalog, permission.asked, protocol errors: not persisted here
      }
      schedule();
    },

    onPermissionDecision(ev) {
      if (closed || !mine(ev.sessionId)) return;
      richAudit = true;
      // Replaces the event-based row for the same request when it has not been committed yet.
      audits.set(ev.requestKey || 'a' + ++auditSeq, ev);
      schedule();
    },

    flush,

    close() {
      if (closed) return;
      flush();
      closed = true;
      store._recorders.delete(rec);
    },

    get lastSeq() {
      return committedSeq;
    },
    get pendingFrames() {
      return frames.length;
    },
  };
  store._recorders.add(rec);
  return rec;
}
