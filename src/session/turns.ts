/**
 * Turns and the queue of one session. A turn is the `session/prompt` request: it starts the
 * turn, its response ends it. Prompts sent while a turn runs wait in the session's one queue
 * (prompt-queue.ts; ACP has no steer; agents like Hermes would otherwise run them inside the
 * running request) and the next is sent when that turn ends, here and only here, so a queued
 * prompt starts once. A steer holds the queue until it is placed, so it goes before what waits.
 * Cancel = `session/cancel` + pending permissions answered `cancelled` + the queue dropped;
 * streamed text is kept. A turn's result always resolves, never rejects.
 */
import { randomUUID } from 'node:crypto';
import { TalariaError } from '../protocol/errors.js';
import type { CancelSettlement } from './cancel-settle.js';
import { checkPromptSize, toBlocks, type EventBody, type PromptInput, type SessionCore } from './core.js';
import { describeError } from './errors.js';
import type { SessionEvent } from './events.js';
import { defaultMapPrompt } from './hooks.js';
import { reopenAtAgent } from './reopen.js';
import { noteTurnFailure } from './turn-failure.js';
import { PromptQueue, type Waiting } from './prompt-queue.js';
import { rejectedIn } from './turn-entries.js';
import { settleTurn, type PromptResponse } from './turn-end.js';
import { notifySafely, withContext } from './turn-wire.js';

export { withContext };
import { Turn, type TurnError, type TurnResult } from './turn.js';
import { UsageTracker } from './usage.js';
import type { ContentBlock } from '../thread/types.js';

type Iterate = (until: Promise<unknown>, filter: (e: SessionEvent) => boolean) => AsyncIterableIterator<SessionEvent>;

export class TurnQueue {
  private current: Turn | null = null;
  readonly waiting: PromptQueue;
  /** Steers under way: the queue waits for them (a steer goes before what was queued). */
  private holds = 0;
  private turnSeq = 0;
  /** Turn ids stay unique across Session objects for one agent session (reloads, restarts): the store keys on them. */
  private readonly turnPrefix = randomUUID().slice(0, 8);
  private readonly usage: UsageTracker;
  /** hooks.reopenAfterFailedTurn: the agent's session must be closed and resumed before the next prompt. */
  private reopenPending = false;

  constructor(
    private readonly s: SessionCore,
    private readonly settle: CancelSettlement,
    private readonly iterate: Iterate,
  ) {
    this.usage = new UsageTracker(s.hooks.usageMode ?? 'per-turn');
    this.waiting = new PromptQueue(s);
  }

  get running(): Turn | null {
    return this.current;
  }

  get queued(): readonly Turn[] {
    return this.waiting.turns;
  }

  /** The agent reset its cumulative counters (Hermes: set_model, a new process). */
  resetUsage(): void {
    this.usage.reset();
  }

  prompt(input: PromptInput, o: { context?: string } = {}): Turn {
    const turn = this.make(toBlocks(input));
    if (o.context) turn.context = o.context;
    // Queued while anything would go before it: a running turn, a steer being placed, others waiting.
    if (this.current || this.holds > 0 || this.waiting.length > 0) {
      this.waiting.add(turn);
      this.startNext(); // nothing runs and nothing holds: the first in line goes (never a queue left waiting)
    } else this.start(turn);
    return turn;
  }

  /**
   * A steer's message, ahead of everything queued: run now, or next when a turn runs. `carry`: a
   * queued prompt being steered goes as itself (its caller's Turn answers it, under its ids).
   */
  sendFirst(text: string, o: { context?: string; carry?: Waiting } = {}): Turn {
    if (o.carry) this.checkOpen();
    const turn = o.carry?.turn ?? this.make(toBlocks(text));
    if (o.context) turn.context = o.context;
    if (!this.current) this.start(turn);
    else if (!o.carry) this.waiting.add(turn, true);
    else {
      // Another steer's turn runs now: it waits again, first, as the queued prompt it was.
      this.waiting.moveToFront(o.carry);
      this.waiting.changed();
    }
    return turn;
  }

  private checkOpen(): void {
    const { s } = this;
    if (s.state === 'closed') throw new TalariaError('session_closed', `session ${s.id} is closed`);
    if (s.state === 'failed')
      throw new TalariaError('session_failed', `session ${s.id} failed; it must be reloaded before prompting`);
  }

  private make(blocks: ContentBlock[]): Turn {
    this.checkOpen();
    if (blocks.length === 0) throw new TalariaError('invalid_argument', 'a prompt needs at least one content block');
    checkPromptSize(blocks, this.s.maxPromptBytes);
    return new Turn(`turn-${this.turnPrefix}-${++this.turnSeq}`, blocks, this.iterate);
  }

  /** Runs `fn` (a steer) with the queue held: what was queued starts once the steer is placed. */
  async holding<T>(fn: () => Promise<T>): Promise<T> {
    this.holds++;
    try {
      return await fn();
    } finally {
      this.holds--;
      this.startNext();
    }
  }

  /** The next queued prompt, when nothing runs and no steer holds the queue. */
  startNext(): void {
    if (this.current || this.holds > 0) return;
    const next = this.waiting.shift();
    if (!next) return;
    this.start(next.turn);
    // After the start: the update names the turn the queued prompt became (a run waits for it).
    this.waiting.changed({ id: next.id, turnId: next.turn.id });
  }

  /** A queued prompt removed: its turn ends without running. */
  removeQueued(id: string): void {
    const { w } = this.waiting.take(id);
    this.waiting.changed();
    this.drop([w]);
  }

  /** A queued prompt the agent took into the running turn: it ends with that turn, which answered it. */
  absorbed(turn: Turn, into: Turn): void {
    const end = (r: TurnResult) => {
      this.s.emit('turn.ended', { turnId: turn.id, stopReason: r.stopReason, durationMs: 0 });
      turn.resolve({ turnId: turn.id, stopReason: r.stopReason, durationMs: 0, steeredInto: into.id });
    };
    into.result
      .then(end)
      .catch((err: unknown) => this.s.logger.error('ending a steered prompt failed', { error: String(err) }));
  }

  /** Runs `turn` now; whatever goes wrong ends the turn (its result never rejects). */
  private start(turn: Turn): void {
    this.current = turn;
    this.run(turn).catch((err: unknown) => this.failed(turn, err));
  }

  /** run() handles the agent's errors itself; this is a throwing hook (a provider's quirk code) or a bug. */
  private failed(turn: Turn, err: unknown): void {
    const { s } = this;
    s.logger.error('turn failed unexpectedly', { sessionId: s.id, turnId: turn.id, error: String(err) });
    if (turn.status === 'done') return;
    const error = describeError(err);
    const isDone = (): boolean => turn.status === 'done';
    try {
      this.finish(turn, undefined, error);
    } catch (again) {
      // Even ending it failed: the caller still gets its result.
      s.logger.error('ending the turn failed', { sessionId: s.id, turnId: turn.id, error: String(again) });
      if (this.current === turn) this.current = null;
      if (!isDone())
        turn.resolve({ turnId: turn.id, stopReason: 'error', error, durationMs: s.now() - turn.startedAt });
    }
  }

  private async run(turn: Turn): Promise<void> {
    const { s } = this;
    turn.status = 'running';
    turn.startedAt = s.now();
    s.setState('prompt');
    this.settle.turnStarted();
    if (this.reopenPending) {
      this.reopenPending = false;
      await reopenAtAgent(s);
    }
    const plan = (s.hooks.mapPrompt ?? defaultMapPrompt)(turn.prompt, s.port.promptCaps);
    turn.firstEntry = s.thread.entries.length;
    s.apply({ type: 'turn.started', turnId: turn.id, prompt: turn.prompt });
    s.emit('turn.started', { turnId: turn.id, prompt: turn.prompt });
    for (const n of plan.notices) s.notice('warning', n.code, n.text);

    let response: PromptResponse | undefined;
    let error: TurnError | undefined;
    if (plan.blocks.length === 0) {
      error = { code: 'nothing_to_send', message: 'nothing in the prompt can be sent to this agent' };
    } else if (turn.cancelRequested) {
      response = { stopReason: 'cancelled' }; // cancelled while the session was being reopened
    } else {
      try {
        response = await s.port.request<PromptResponse>('session/prompt', {
          sessionId: s.id,
          prompt: withContext(plan.blocks, turn.context),
        });
      } catch (err) {
        error = describeError(err, s.port.authMethods?.());
      }
    }
    this.finish(turn, response, error);
  }

  private finish(turn: Turn, response: PromptResponse | undefined, failure?: TurnError): void {
    const { s } = this;
    // The result's error: `failure`, or what the provider's classifyTurn made of a completed turn.
    const { result, cancelled } = settleTurn(s, turn, response, failure, this.usage);
    const { error, usage } = result;

    this.current = null;
    const lost = error?.code === 'agent_crashed' || error?.code === 'connection_closed';
    if (s.hooks.reopenAfterFailedTurn && !lost && (error || cancelled || rejectedIn(s.thread, turn)))
      this.reopenPending = true;
    if (s.state !== 'closed') s.setState(lost ? 'fail' : 'turn_end');
    const ended: EventBody<'turn.ended'> = {
      turnId: turn.id,
      stopReason: result.stopReason,
      durationMs: result.durationMs,
    };
    if (usage) ended.usage = usage;
    if (error) ended.error = error;
    // Before the turn's end is told and the next queued prompt starts: the notice belongs under this turn.
    noteTurnFailure(s, turn.id, result.stopReason, error);
    s.emit('turn.ended', ended);
    turn.resolve(result);

    if (lost || s.state === 'closed') this.dropQueue(error ?? { code: 'session_closed', message: 'session closed' });
    else this.startNext();
  }

  /** Queued turns end without running (`cancelled`, or `error` with `error`). */
  dropQueue(error?: TurnError): void {
    const dropped = this.waiting.clear();
    if (dropped.length === 0) return;
    this.waiting.changed();
    this.drop(dropped, error);
  }

  private drop(waiting: Waiting[], error?: TurnError): void {
    for (const { turn: t } of waiting) {
      const r: TurnResult = { turnId: t.id, stopReason: error ? 'error' : 'cancelled', durationMs: 0, dropped: true };
      if (error) r.error = error;
      this.s.emit('turn.ended', { turnId: t.id, stopReason: r.stopReason, durationMs: 0, ...(error ? { error } : {}) });
      t.resolve(r);
    }
  }

  /** See Session.cancel. `keepQueue`: a steer's cancel (what waits goes on waiting). */
  cancel(o: { keepQueue?: boolean } = {}): Promise<TurnResult | undefined> {
    const { s } = this;
    if (!o.keepQueue) this.dropQueue();
    const turn = this.current;
    if (!turn || turn.cancelRequested) return turn?.result ?? Promise.resolve(undefined);
    turn.cancelRequested = true;
    this.settle.cancelled(turn.id);
    s.setState('cancel');
    // The agent may be gone already (its stdout closing): the turn then ends with that error.
    notifySafely(s, 'session/cancel', { sessionId: s.id });
    s.broker.cancelSession(s.id);
    return turn.result;
  }

  /** True while the running turn is being cancelled. */
  get cancelling(): boolean {
    return this.current?.cancelRequested === true;
  }
}
