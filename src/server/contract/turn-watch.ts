/**
 * Which turn of a session is a run's (issue 16), from the session's stream: the prompt's own turn,
 * or, for a prompt queued behind a running turn, the turn it became when it left the queue
 * (`queue.updated`'s `started`; for one steered from the queue, the turn that carries it). A
 * queued prompt that left the queue without a turn (removed, or a cancel that cleared the queue)
 * ends the run as `removed`. One rule for the server's
 * run stream (which ends with the run's turn) and for `talaria run` reading it.
 */
import type { SessionSnapshot, StreamEvent } from './index.js';

type Ended = Extract<StreamEvent, { type: 'turn.ended' }>;

export class TurnWatch {
  /** The prompt's answer is in. */
  private known = false;
  private ours: string | undefined;
  private queued: string | undefined;
  /** The run's `turn.ended`, once seen. */
  end: Ended | undefined;
  /** Seq of the event that took the run's queued prompt off the queue unrun. */
  removedSeq: number | undefined;
  /** Turns that ended before the prompt's answer named ours. */
  private readonly ended = new Map<string, Ended>();

  /** The run's turn, once known (a queued prompt's once it left the queue as a turn). */
  get turnId(): string | undefined {
    return this.ours;
  }

  /** The queued prompt's id while it waits in the queue. */
  get queuedId(): string | undefined {
    return this.queued;
  }

  /** The run is over: its turn ended, or its queued prompt will never run. */
  get done(): boolean {
    return this.end !== undefined || this.removedSeq !== undefined;
  }

  /** Seq of the event that ended the run (its turn's end, or its prompt's removal). */
  get doneSeq(): number | undefined {
    return this.end?.seq ?? this.removedSeq;
  }

  /** The prompt's answer (a turn may end before it is known: a prompt refused at once). */
  sent(turn: { id: string; queued: boolean }): void {
    this.known = true;
    if (turn.queued) this.queued = turn.id;
    else this.adopt(turn.id);
  }

  see(ev: StreamEvent): void {
    if (ev.type === 'turn.ended') {
      this.ended.set(ev.turnId, ev);
      if (ev.turnId === this.ours) this.end = ev;
    } else if (
      ev.type === 'queue.updated' &&
      this.known &&
      this.queued !== undefined &&
      !ev.queue.some((q) => q.id === this.queued)
    ) {
      if (ev.started?.id === this.queued) this.adopt(ev.started.turnId);
      else this.removedSeq = ev.seq;
      this.queued = undefined;
    }
  }

  /**
   * A snapshot stood for events a reader missed; `turnId` is the run's turn as the server's own
   * watch knew it then. A queued prompt gone from the snapshot's queue without one was removed.
   */
  gap(snap: SessionSnapshot, turnId: string | undefined): void {
    if (this.ours !== undefined || this.queued === undefined) return;
    if (turnId !== undefined) {
      this.queued = undefined;
      this.adopt(turnId);
    } else if (!snap.queue.some((q) => q.id === this.queued)) {
      this.queued = undefined;
      this.removedSeq = snap.seq;
    }
  }

  private adopt(turnId: string): void {
    this.ours = turnId;
    this.end = this.ended.get(turnId);
  }
}
