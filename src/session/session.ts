/**
 * One ACP session: its thread, its state, its events, and its wire log. Updates reach it
 * synchronously from the router (in wire order), so when a prompt's response resolves, every
 * update the agent sent before it is already in the thread. It is built in three layers, one
 * object: what it is and who listens (session-base.ts), the update pipeline (session-stream.ts),
 * and here what callers do with it: prompt, queue, steer, cancel, permissions, models, reload and
 * end of life. The parts it is made of live beside it (see core.ts): turns and queue, cancel
 * settlement, permission bridge, models and modes.
 */
import type { PermissionAnswer, PermissionOutcome } from '../permission/types.js';
import { checkPromptSize, toBlocks, type PromptInput, type SessionInit } from './core.js';
import { describeError } from './errors.js';
import { setConfigOption, switchTo } from './model-mode.js';
import { requestPermission, type PermissionParams } from './permission-bridge.js';
import type { Turn, TurnResult } from './turn.js';
import { TurnQueue } from './turns.js';
import { steer, steerQueued, type SteerResult } from './steer.js';
import type { QueuedPrompt } from './prompt-queue.js';
import { SessionStream } from './session-stream.js';

export { toBlocks, type PromptInput, type SessionInit, type SessionPort } from './core.js';
export type { TakenUpdate } from './session-base.js';

export class Session extends SessionStream {
  protected readonly turns: TurnQueue;

  constructor(init: SessionInit) {
    super(init);
    this.turns = new TurnQueue(this, this.settle, (until, filter) => this.bus.iterate({ until, filter }));
  }

  get running(): Turn | null {
    return this.turns.running;
  }

  get queued(): readonly Turn[] {
    return this.turns.queued;
  }

  /** The prompt queue as every face shows it (ids, text, positions); `queue.updated` says when it changes. */
  get queue(): QueuedPrompt[] {
    return this.turns.waiting.list();
  }

  /** The queued prompt a turn waits as (undefined once it started, or if it never queued). */
  queuedPrompt(turnId: string): QueuedPrompt | undefined {
    return this.turns.waiting.of(turnId);
  }

  // ---- turns ----------------------------------------------------------------------------------

  /** Throws what prompt() would for this input's size. */
  checkPrompt(input: PromptInput): void {
    checkPromptSize(toBlocks(input), this.maxPromptBytes);
  }

  /**
   * Sends a prompt. While a turn runs (or others wait), the prompt is queued (ACP has no steer;
   * agents like Hermes would otherwise run it inside the running request) and sent when the turns
   * before it ended; while it waits it is in `queue`, editable and removable.
   */
  prompt(input: PromptInput, o: { context?: string } = {}): Turn {
    return this.turns.prompt(input, o);
  }

  /** A queued prompt's new text (its images kept). Throws `not_found` once it started or was removed. */
  editQueued(id: string, text: string): void {
    this.turns.waiting.edit(id, text);
  }

  /** Takes a queued prompt off the queue; its Turn ends `cancelled`, `dropped`. Throws `not_found` as editQueued. */
  removeQueued(id: string): void {
    this.turns.removeQueued(id);
  }

  /**
   * "Steer now": the message goes into the running turn — through the agent's own steering when it
   * has one, else by cancelling the turn and resending with the partial answer as context. With
   * nothing running it is a normal prompt. Either way it goes before what is queued, and what is
   * queued stays queued. (`prompt()` while a turn runs = queue.)
   */
  steer(text: string): Promise<SteerResult> {
    return steer(this, this.turns, text);
  }

  /**
   * "Steer now" on queued prompt `id`: off the queue and steered in one step (steer.ts); its own
   * Turn answers it when a turn does ('agent': it ends with the running turn, `steeredInto`). A
   * failed steer puts it back where it was. Throws `not_found`, or `invalid_argument` for images.
   */
  steerQueued(id: string): Promise<SteerResult> {
    return steerQueued(this, this.turns, id);
  }

  /**
   * Cancel = `session/cancel` + pending permissions answered `cancelled` + the queue dropped (its
   * turns end `cancelled`, `dropped`).
   * Streamed text is kept; late updates are still accepted. Resolves with the running turn's
   * result; never rejects (not even when the agent is already gone).
   */
  cancel(): Promise<TurnResult | undefined> {
    return this.turns.cancel();
  }

  /** The agent reset its cumulative counters (Hermes: set_model, a new process). */
  resetUsage(): void {
    this.turns.resetUsage();
  }

  // ---- permissions ----------------------------------------------------------------------------

  /** @internal The client routes `session/request_permission` here. */
  requestPermission(params: PermissionParams, requestId: string | number): Promise<PermissionOutcome> {
    return requestPermission(this, params, requestId, this.turns.running?.id);
  }

  /** Answer a pending permission request (from a person or a client). First answer wins. */
  answerPermission(requestKey: string, answer: PermissionAnswer, answeredBy?: string) {
    return this.broker.answer(requestKey, answer, answeredBy);
  }

  pendingPermissions() {
    return this.broker.pending(this.id);
  }

  // ---- models and modes -----------------------------------------------------------------------

  async setModel(modelId: string): Promise<void> {
    await switchTo(this, 'model', modelId);
    await this.hooks.afterSetModel?.({ reload: () => this.reload(), resetUsage: () => this.resetUsage() });
  }

  setMode(modeId: string): Promise<void> {
    return switchTo(this, 'mode', modeId);
  }

  setConfigOption(configId: string, value: unknown): Promise<void> {
    return setConfigOption(this, configId, value);
  }

  // ---- reload and replay ----------------------------------------------------------------------

  /**
   * Load the session again on the same agent (e.g. to re-register MCP servers after Hermes' set_model)
   * without duplicating the history we already hold: the replay is read and discarded.
   */
  async reload(): Promise<void> {
    this.discardReplay = true;
    try {
      this.adoptSetup(
        await this.port.request('session/load', { sessionId: this.id, cwd: this.cwd, mcpServers: this.mcpServers }),
      );
    } finally {
      this.discardReplay = false;
    }
  }

  // ---- end of life ----------------------------------------------------------------------------

  /** @internal The connection died: the running turn ends with an error, the session is failed. */
  connectionLost(err: unknown): void {
    if (this._state === 'closed') return;
    this.broker.cancelSession(this.id);
    if (!this.turns.running) {
      this.turns.dropQueue(describeError(err));
      if (this._state !== 'failed') this.setState('fail');
    }
    // With a turn running, its prompt request rejects with the same error and the turn fails the session.
  }

  /**
   * @internal The host continues this conversation in a fresh agent session (after an overflow,
   * a rewind): same object, same thread and events; requests name the new id from now on.
   */
  reseat(agentSessionId: string): void {
    this._id = agentSessionId;
  }

  /** @internal After the host respawned the agent and reloaded this session. */
  recover(): void {
    if (this._state === 'failed') this.setState('recover');
  }

  /** @internal */
  markClosed(reason: string): void {
    if (this._state === 'closed') return;
    this.turns.dropQueue({ code: 'session_closed', message: 'session closed' });
    this.broker.cancelSession(this.id);
    this.setState('close');
    this.emit('session.closed', { reason });
    this.init.onClosed?.(this);
  }
}
