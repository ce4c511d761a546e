/**
 * A session's update pipeline: every `session/update` the router hands it, in wire order, through
 * cancel settlement and the quirk hooks into the reducer, and the thread's changes out as events
 * (fanOut, the per-chunk hot path: kept free of indirection). Text chunks of one read are held
 * and reduced as one change (chunk-run.ts).
 */
import type { Frame } from '../protocol/types.js';
import { reduce, reduceUpdate } from '../thread/index.js';
import type { ThreadAction, ThreadChange } from '../thread/types.js';
import { CancelSettlement } from './cancel-settle.js';
import { ChunkRun } from './chunk-run.js';
import type { EventBody, SessionInit } from './core.js';
import type { EventName, SessionEvent } from './events.js';
import type { Update } from './router.js';
import { emitChange } from './thread-events.js';
import type { TurnQueue } from './turns.js';
import { ownMessage } from './whole-messages.js';
import { SessionBase } from './session-base.js';

export abstract class SessionStream extends SessionBase {
  /** The frame receiveFrame got last, while someone takes updates: the one that brings the next update. */
  private lastFrame: Frame | undefined;
  private seq = 0;
  protected readonly settle: CancelSettlement;
  /** The turns and queue (session.ts); read here for whether the running turn is being cancelled. */
  protected abstract readonly turns: TurnQueue;
  /** While replaying for a reload whose history we already hold, updates are not reduced again. */
  protected discardReplay = false;
  /** Between beginReplay and endReplay: the agent is replaying its history (whole-messages.ts). */
  private replaying = false;
  /** apply()'s changes array, kept between updates (undefined while one is in use). */
  private spare: ThreadChange[] | undefined = [];
  /** Text chunks of one message held until their read is handled: reduced as one change. */
  private readonly run = new ChunkRun((u, n) => this.applyUpdate(u, n));

  constructor(init: SessionInit) {
    super(init);
    this.settle = new CancelSettlement(this.thread);
  }

  /** @internal */
  emit<K extends EventName>(type: K, body: EventBody<K>): void {
    this.run.flush(); // text held from this read goes out before anything said after it
    const ev = { type, sessionId: this.id, seq: ++this.seq, at: this.now(), ...body } as unknown as SessionEvent;
    this.bus.emit(ev);
  }

  // ---- thread ---------------------------------------------------------------------------------

  /** @internal Apply a reducer action and fan its changes out as events. */
  apply(action: ThreadAction): void {
    this.run.flush(); // whatever arrived before this action goes first
    // One changes array reused per update; a listener that applies again meanwhile gets its own.
    const changes = this.spare ?? [];
    this.spare = undefined;
    reduce(this.thread, action, changes);
    this.fanOut(changes);
  }

  /** apply() for one streamed update (`chunks`: how many text chunks it folds), without an action object. */
  private applyUpdate(update: Update, chunks: number): void {
    const changes = this.spare ?? [];
    this.spare = undefined;
    reduceUpdate(this.thread, update, changes);
    this.fanOut(changes, chunks);
  }

  /** The changes of one reduction as events; gives `changes` back (emptied) for the next one. */
  private fanOut(changes: ThreadChange[], chunks = 1): void {
    try {
      for (let i = 0; i < changes.length; i++) {
        const c = changes[i]!;
        if (c.type === 'entry.updated' || c.type === 'entry.added') {
          // The streaming hot path (one per chunk): the event built in one literal, the same fields in
          // the same order as emit() would give, without its body object and spread.
          if (this.bus.size === 0) {
            ++this.seq;
            continue;
          }
          if (chunks > 1) {
            const ev = {
              type: c.type,
              sessionId: this._id,
              seq: ++this.seq,
              at: this.clock(),
              index: c.index,
              entry: c.entry,
            } as SessionEvent & {
              appended?: string;
              chunks?: number;
            };
            if (c.type === 'entry.updated' && c.appended !== undefined) ev.appended = c.appended;
            ev.chunks = chunks;
            this.bus.emit(ev);
          } else if (c.type === 'entry.updated' && c.appended !== undefined) {
            this.bus.emit({
              type: c.type,
              sessionId: this._id,
              seq: ++this.seq,
              at: this.clock(),
              index: c.index,
              entry: c.entry,
              appended: c.appended,
            } as SessionEvent);
          } else
            this.bus.emit({
              type: c.type,
              sessionId: this._id,
              seq: ++this.seq,
              at: this.clock(),
              index: c.index,
              entry: c.entry,
            } as SessionEvent);
        } else emitChange(this, c);
      }
    } finally {
      // pop() is inlined where `length = 0` is a runtime call; there is usually one change.
      while (changes.length !== 0) changes.pop();
      this.spare = changes;
    }
  }

  /** @internal The router: every `session/update` of this session, in wire order. */
  receiveUpdate(update: Update): void {
    this.replayCount++;
    if (this.discardReplay) return;
    // Taken before anything runs: a listener may send a frame of its own meanwhile.
    const frame = this.taken.size !== 0 ? this.broughtBy(update) : undefined;
    if (this.replaying && this.hooks.replayWholeMessages) update = ownMessage(update);
    this.run.before(update); // what was held goes first, before any hook sees this update
    const settled = this.settle.filter(update, this.turns.cancelling);
    const mapped = this.hooks.mapUpdate ? this.hooks.mapUpdate(settled) : settled;
    if (!mapped) return;
    if (this.run.take(mapped)) {
      if (this.taken.size !== 0) this.taken.emit({ update: mapped, frame });
      return;
    }
    this.run.flush();
    this.applyUpdate(mapped, 1);
    if (this.taken.size !== 0) this.taken.emit({ update: mapped, frame });
  }

  /** The frame receiveFrame got just before `update`, when it is the one that carries it. */
  private broughtBy(update: Update): Frame | undefined {
    const f = this.lastFrame;
    this.lastFrame = undefined;
    return f !== undefined && (f.msg.params as { update?: unknown } | undefined)?.update === update ? f : undefined;
  }

  /** @internal The router: the read that brought the last updates is handled. */
  readEnd(): void {
    this.run.flush();
  }

  /** @internal The router: every frame of this session (and its connection's handshake), in wire order. */
  receiveFrame(frame: Frame): void {
    if (this.wire.size !== 0) this.wire.emit(frame);
    if (this.taken.size !== 0) this.lastFrame = frame;
  }

  /** @internal While history is being replayed into the thread (`discard`: it is there already). */
  beginReplay(discard = false): void {
    this.replayCount = 0;
    this.discardReplay = discard;
    this.replaying = true;
  }

  /** @internal */
  endReplay(): void {
    this.discardReplay = false;
    this.replaying = false;
  }
}
