/**
 * One ACP session: its thread, its state, its events, and its wire log. Updates reach it
 * synchronously from the router (in wire order), so when a prompt's response resolves, every
 * update the agent sent before it is already in the thread. The parts it is made of live
 * beside it (see core.ts): turns and queue, cancel settlement, permission bridge, models and modes.
 */
import type { Frame, Logger } from '../protocol/types.js';
import type { PermissionBroker } from '../permission/broker.js';
import type { PermissionAnswer, PermissionMode, PermissionOutcome, PermissionRule } from '../permission/types.js';
import { createThread, openToolCalls, reduce, reduceUpdate } from '../thread/index.js';
import type { Thread, ThreadAction, ThreadChange, ToolCallEntry } from '../thread/types.js';
import { EventBus } from './bus.js';
import { CancelSettlement } from './cancel-settle.js';
import { ChunkRun } from './chunk-run.js';
import { batchNow } from './clock.js';
import { normalizeCatalog, type Catalog } from './catalog.js';
import {
  checkPromptSize,
  DEFAULT_MAX_PROMPT_BYTES,
  toBlocks,
  type EventBody,
  type PromptInput,
  type SessionCore,
  type SessionInit,
  type SessionPort,
} from './core.js';
import { describeError } from './errors.js';
import type { EventName, SessionEvent } from './events.js';
import type { SessionHooks } from './hooks.js';
import { setConfigOption, switchTo } from './model-mode.js';
import { requestPermission, type PermissionParams } from './permission-bridge.js';
import type { Update } from './router.js';
import { transition, type SessionEvent as StateEvent, type SessionState } from './state.js';
import type { Turn, TurnResult } from './turn.js';
import { emitChange } from './thread-events.js';
import { TurnQueue } from './turns.js';
import { steer, steerQueued, type SteerResult } from './steer.js';
import type { QueuedPrompt } from './prompt-queue.js';
import { OtherRequests } from './other-requests.js';
import type { TerminalView } from '../protocol/client-terminal.js';
import { ownMessage } from './whole-messages.js';

export { toBlocks, type PromptInput, type SessionInit, type SessionPort } from './core.js';

/** An update as the thread took it, with the agent's frame that brought it (its `update` is this one unless settlement or a quirk changed it). */
export interface TakenUpdate {
  update: Update;
  frame: Frame | undefined;
}

export class Session implements SessionCore {
  /** The agent's session id; it changes only when the host moves the conversation to a fresh agent session (reseat). */
  get id(): string {
    return this._id;
  }
  private _id: string;
  readonly cwd: string;
  readonly additionalDirectories: string[];
  mcpServers: unknown[];
  readonly thread: Thread;
  catalog: Catalog = { others: [] };
  permissionMode: PermissionMode;
  /** Rules learned in this session ("always" answers, stored rules); after the client's base rules. */
  readonly rules: PermissionRule[] = [];
  /** Updates seen during the current load/resume request (a `{}` load with none = not found). */
  replayCount = 0;
  /** The agent's requests Talaria does not answer itself (the client routes them here). */
  readonly otherRequests = new OtherRequests();

  /** @internal */ readonly port: SessionPort;
  /** @internal */ readonly broker: PermissionBroker;
  /** @internal */ readonly hooks: SessionHooks;
  /** @internal */ readonly logger: Logger;
  /** @internal */ readonly maxPromptBytes: number;
  /** @internal */ readonly now: () => number;

  private _state: SessionState = 'idle';
  private readonly bus: EventBus<SessionEvent>;
  private readonly wire: EventBus<Frame>;
  private readonly taken: EventBus<TakenUpdate>;
  /** The frame receiveFrame got last, while someone takes updates: the one that brings the next update. */
  private lastFrame: Frame | undefined;
  private seq = 0;
  private readonly settle: CancelSettlement;
  private readonly turns: TurnQueue;
  /** While replaying for a reload whose history we already hold, updates are not reduced again. */
  private discardReplay = false;
  /** Between beginReplay and endReplay: the agent is replaying its history (whole-messages.ts). */
  private replaying = false;
  /** apply()'s changes array, kept between updates (undefined while one is in use). */
  private spare: ThreadChange[] | undefined = [];
  /** Stamps the streamed entry events: the injected clock, else Date.now once per read (clock.ts). */
  private readonly clock: () => number;
  /** Text chunks of one message held until their read is handled: reduced as one change. */
  private readonly run = new ChunkRun((u, n) => this.applyUpdate(u, n));

  constructor(private readonly init: SessionInit) {
    this._id = init.id;
    this.cwd = init.cwd;
    this.additionalDirectories = init.additionalDirectories ?? [];
    this.mcpServers = init.mcpServers ?? [];
    this.port = init.port;
    this.broker = init.broker;
    this.hooks = init.hooks ?? {};
    this.logger = init.logger;
    this.maxPromptBytes = init.maxPromptBytes ?? DEFAULT_MAX_PROMPT_BYTES;
    this.now = init.now ?? Date.now;
    this.clock = init.now ?? batchNow;
    this.thread = createThread(this.clock);
    this.permissionMode = init.permissionMode ?? 'ask';
    this.bus = new EventBus((err) => init.logger.error('session listener threw', { error: String(err) }));
    this.wire = new EventBus((err) => init.logger.error('session frame listener threw', { error: String(err) }));
    this.taken = new EventBus((err) => init.logger.error('session update listener threw', { error: String(err) }));
    this.settle = new CancelSettlement(this.thread);
    this.turns = new TurnQueue(this, this.settle, (until, filter) => this.bus.iterate({ until, filter }));
  }

  get state(): SessionState {
    return this._state;
  }

  /** cwd + additional directories: the only places fs/terminal requests may touch. */
  get roots(): string[] {
    return [this.cwd, ...this.additionalDirectories];
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

  policy(): { mode: PermissionMode; rules: PermissionRule[] } {
    return { mode: this.permissionMode, rules: [...(this.init.baseRules?.() ?? []), ...this.rules] };
  }

  /** A terminal Talaria runs for the agent in this session (undefined once released, or run elsewhere). */
  terminal(terminalId: string): TerminalView | undefined {
    return this.port.terminal?.(this.id, terminalId);
  }

  // ---- events and frames ----------------------------------------------------------------------

  subscribe(fn: (e: SessionEvent) => void): () => void {
    return this.bus.subscribe(fn);
  }

  /** Events from the first read on, until `until` settles, `signal` aborts or the loop stops. */
  events(opts: { signal?: AbortSignal; until?: Promise<unknown> } = {}): AsyncIterableIterator<SessionEvent> {
    return this.bus.iterate(opts);
  }

  /**
   * This session's frames, in wire order, each with its raw line: the connection's handshake
   * first, then everything that names the session (the recorder writes these bytes as they are).
   */
  subscribeFrames(fn: (frame: Frame) => void): () => void {
    return this.wire.subscribe(fn);
  }

  /**
   * Each update as the thread takes it (after cancel settlement and the quirk set), in wire order,
   * as it arrives (text chunks before the read's end folds them): what a face that forwards the
   * agent's stream (the ACP editor link) sends, so it never decides anything the thread did not.
   * A text chunk comes before its text is in the thread; anything else after it was reduced.
   */
  subscribeUpdates(fn: (taken: TakenUpdate) => void): () => void {
    return this.taken.subscribe(fn);
  }

  /** @internal */
  emit<K extends EventName>(type: K, body: EventBody<K>): void {
    this.run.flush(); // text held from this read goes out before anything said after it
    const ev = { type, sessionId: this.id, seq: ++this.seq, at: this.now(), ...body } as unknown as SessionEvent;
    this.bus.emit(ev);
  }

  /** @internal */
  setState(event: StateEvent): void {
    const previous = this._state;
    const next = transition(previous, event);
    if (next === previous) return;
    this._state = next;
    this.emit('session.state', { state: next, previous });
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

  /** @internal */
  setCatalog(catalog: Catalog): void {
    this.catalog = catalog;
    this.emit('catalog.updated', { catalog });
  }

  /** @internal From a session/new|load|resume|fork result. */
  adoptSetup(result: unknown): void {
    const r = (result ?? {}) as { configOptions?: unknown; models?: unknown; modes?: unknown };
    if (r.configOptions || r.models || r.modes) this.setCatalog(normalizeCatalog(r, this.hooks.modelRows));
  }

  /** Adds a visible notice entry (used by providers and the host as well). */
  notice(level: 'info' | 'warning' | 'error', code: string, text: string, data?: unknown): void {
    this.apply({ type: 'notice', level, code, text, data });
  }

  openToolCalls(): ToolCallEntry[] {
    return openToolCalls(this.thread);
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
