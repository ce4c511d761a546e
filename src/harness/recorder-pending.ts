/**
 * What a recorder holds between two commits: frames as packed bytes, entries coalesced by position
 * (a streamed reply updates one entry per chunk; only its last state is written), turns, audit
 * rows, the thread meta, title and activity. `take` turns it into one WriterBatch and starts afresh.
 *
 * Tails: a chunk appended to an entry whose full row an earlier batch already wrote is stored as
 * that text alone (entries.appendTail), not as the whole entry again — rewriting the open message
 * on every commit cost its length per commit, quadratic in a long reply streamed at a paced rate.
 * Every commit still holds the thread as far as its frames go (the stored row plus its tails), so
 * a crash mid-message reopens with the text so far. A tailed entry is written in full once more
 * when the next entry starts, at the turn's end, or when it changes other than by appending; a
 * full write drops the row's tails in the same commit (whoever wrote them: another process, or a
 * batch that failed, leaves none behind to be read twice).
 */
import type { PermissionDecisionEvent } from '../permission/types.js';
import type { SessionEvent } from '../session/events.js';
import type { Entry } from '../thread/types.js';
import type { AuditInput, ThreadMeta } from '../store/index.js';
import { FramePacker } from '../store/wire-blocks.js';
import { emptyEntryColumns, type BatchRest, type BatchTurn, type WriterBatch } from '../store/writer-batch.js';

/** The meta without the plan's turn: a new plan from outside a turn has none. */
function withoutPlanTurn(meta: ThreadMeta): ThreadMeta {
  const { planTurnId: _dropped, ...rest } = meta;
  return rest;
}

/** What an event asks of the recorder: nothing, a commit soon, or a commit now (a turn's end). */
export type EventEffect = 'none' | 'schedule' | 'flush';

export class PendingWork {
  /** Frames as bytes from the moment they arrive (wire-blocks.ts, FramePacker). */
  private readonly frames = new FramePacker();
  private entries = new Map<number, Entry>();
  /** Text appended (this batch) to entries whose full row is already handed to a commit. */
  private tails = new Map<number, { id: string; parts: string[] }>();
  /** Entries whose full row this recorder handed to a commit: index → entry id. */
  private readonly written = new Map<number, string>();
  /** Entries with tails (pending or handed over), with their latest state: written in full later. */
  private readonly tailed = new Map<number, Entry>();
  private turns: BatchTurn[] = [];
  private audits = new Map<string, AuditInput>();
  private auditSeq = 0;
  private metaDirty = false;
  private title: string | undefined;
  private touchedAt: number | undefined;
  /** Once the broker's richer decision records arrive, permission.decided events are not audited. */
  private richAudit = false;
  /**
   * Turns waiting in the session's queue: one that ends without starting (removed, dropped by a
   * cancel, steered into the running turn) was a prompt that never ran, not a turn to store.
   */
  private readonly waiting = new Set<string>();

  constructor(
    private readonly key: string,
    private meta: ThreadMeta,
  ) {}

  get frameCount(): number {
    return this.frames.count;
  }

  get entryCount(): number {
    return this.entries.size + this.tails.size;
  }

  get empty(): boolean {
    return this.frames.count === 0 && this.entries.size === 0 && this.tails.size === 0 && !this.hasRest();
  }

  addFrame(t: number, dir: string, line: string): void {
    this.frames.add(t, dir, line);
  }

  decision(ev: PermissionDecisionEvent): void {
    this.richAudit = true;
    // Replaces the event-based row for the same request when it has not been committed yet.
    this.audits.set(ev.requestKey || 'a' + ++this.auditSeq, ev);
  }

  apply(ev: SessionEvent): EventEffect {
    switch (ev.type) {
      case 'entry.added':
        this.settleTails(); // the open message is most likely done growing
        this.full(ev.index, ev.entry);
        return 'schedule';
      case 'entry.updated': {
        const i = ev.index;
        if (ev.appended !== undefined && !this.entries.has(i) && this.written.get(i) === ev.entry.id) {
          const t = this.tails.get(i);
          if (t) t.parts.push(ev.appended);
          else this.tails.set(i, { id: ev.entry.id, parts: [ev.appended] });
          this.tailed.set(i, ev.entry);
        } else this.full(i, ev.entry);
        return 'schedule';
      }
      case 'turn.queued':
        this.waiting.add(ev.turnId);
        return 'none';
      case 'turn.started':
        this.waiting.delete(ev.turnId);
        this.turns.push({ kind: 'start', turnId: ev.turnId, prompt: ev.prompt, at: ev.at });
        this.setMeta({ ...this.meta, openTurnId: ev.turnId });
        this.touchedAt = ev.at;
        return 'schedule';
      case 'turn.ended': {
        if (this.waiting.delete(ev.turnId)) return 'none';
        this.settleTails();
        const t: BatchTurn = {
          kind: 'end',
          turnId: ev.turnId,
          stopReason: ev.stopReason,
          at: ev.at,
          durationMs: ev.durationMs,
        };
        if (ev.usage !== undefined) t.usage = ev.usage;
        if (ev.error !== undefined) t.error = ev.error;
        this.turns.push(t);
        if (this.meta.openTurnId === ev.turnId) {
          const { openTurnId: _done, ...rest } = this.meta;
          this.setMeta(rest);
        }
        this.touchedAt = ev.at;
        return 'flush'; // on disk before later listeners (the turn's result) hear of it
      }
      case 'session.closed':
        this.settleTails();
        return 'flush';
      case 'permission.decided':
        if (this.richAudit) return 'none';
        this.audits.set(ev.requestKey || 'a' + ++this.auditSeq, {
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
        return 'schedule';
      case 'plan.updated':
        this.setMeta({
          ...withoutPlanTurn(this.meta),
          plan: ev.plan as ThreadMeta['plan'],
          ...(ev.turnId !== undefined ? { planTurnId: ev.turnId } : {}),
        });
        return 'schedule';
      case 'commands.updated':
        this.setMeta({ ...this.meta, availableCommands: ev.commands });
        return 'schedule';
      case 'mode.updated':
        this.setMeta({ ...this.meta, currentModeId: ev.modeId });
        return 'schedule';
      case 'config.updated':
        this.setMeta({ ...this.meta, configOptions: ev.configOptions });
        return 'schedule';
      case 'context.updated':
        this.setMeta({ ...this.meta, context: ev.context as ThreadMeta['context'] });
        return 'schedule';
      case 'info.updated':
        this.setMeta({
          ...this.meta,
          ...(ev.title !== undefined ? { title: ev.title } : {}),
          ...(ev.updatedAt !== undefined ? { updatedAt: ev.updatedAt } : {}),
          ...(ev.meta !== undefined ? { meta: ev.meta } : {}),
        });
        if (ev.title !== undefined) this.title = ev.title;
        return 'schedule';
      default:
        return 'none'; // state, queue, catalog, permission.asked, protocol errors: not persisted here
    }
  }

  /**
   * Everything pending as one batch, and a fresh start. Entries are serialised here: cloning a
   * streamed reply's entry (its blocks) to the writer thread cost three times what JSON.stringify does.
   */
  take(): WriterBatch {
    const e = emptyEntryColumns();
    let rest = '';
    try {
      for (const [index, entry] of this.entries) {
        e.index.push(index);
        e.id.push(entry.id);
        e.kind.push(entry.kind);
        e.turnId.push(entry.turnId ?? null);
        e.json.push(JSON.stringify(entry));
        this.written.set(index, entry.id);
      }
      for (const [index, t] of this.tails) {
        e.tailIndex.push(index);
        e.tailId.push(t.id);
        e.tailText.push(t.parts.join(''));
      }
      if (this.hasRest()) {
        const r: BatchRest = { turns: this.turns, audits: [...this.audits.values()] };
        if (this.metaDirty) r.meta = this.meta;
        if (this.title !== undefined) r.title = this.title;
        if (this.touchedAt !== undefined) r.touchedAt = this.touchedAt;
        rest = JSON.stringify(r);
      }
      return { key: this.key, frames: this.frames.take(), entries: e, rest };
    } finally {
      this.clear();
    }
  }

  /** Drops everything pending (its batch could not be made: the recorder reports the loss). */
  clear(): void {
    this.frames.clear();
    this.entries = new Map();
    this.tails = new Map();
    this.turns = [];
    this.audits = new Map();
    this.metaDirty = false;
    this.title = undefined;
    this.touchedAt = undefined;
  }

  /**
   * A batch was lost: entries whose full row it carried may not be on disk, so each is written in
   * full again on its next change (and those with tails now), never as a tail to a missing row.
   */
  forgetWritten(): void {
    this.written.clear();
    this.settleTails();
  }

  /** The entry at `index` is written in full this batch (its pending and stored tails superseded). */
  private full(index: number, entry: Entry): void {
    this.entries.set(index, entry);
    this.tails.delete(index);
    this.tailed.delete(index);
  }

  /** Every entry with tails is written in full in this batch: its tails go, reads stay one row. */
  private settleTails(): void {
    if (this.tailed.size === 0) return;
    for (const [index, entry] of [...this.tailed]) this.full(index, entry);
  }

  private setMeta(meta: ThreadMeta): void {
    this.meta = meta;
    this.metaDirty = true;
  }

  private hasRest(): boolean {
    return (
      this.turns.length > 0 ||
      this.audits.size > 0 ||
      this.metaDirty ||
      this.title !== undefined ||
      this.touchedAt !== undefined
    );
  }
}
