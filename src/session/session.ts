import { randomUUID } from 'node:crypto';
import { TalariaError, WireError, ConnectionClosedError } from '../protocol/errors.js';
import type { Logger } from '../protocol/types.js';
import type { ContentBlock, Thread, ThreadAction, ThreadChange, ToolCallEntry } from '../thread/types.js';
import { createThread, reduce } from '../thread/index.js';
import type { PermissionBroker } from '../permission/broker.js';
import type { PermissionAnswer, PermissionMode, PermissionOutcome, PermissionRule } from '../permission/types.js';
import { EventBus } from './bus.js';
import type { EventName, EventOf, SessionEvent } from './events.js';
import { defaultMapPrompt, type SessionHooks } from './hooks.js';
import { Turn, type TurnError, type TurnResult } from './turn.js';
import { UsageTracker } from './usage.js';
import { transition, type SessionState } from './state.js';
import {
  applyConfigOptionUpdate,
  applyCurrentMode,
  applyCurrentModel,
  normalizeCatalog,
  planSwitch,
  type Catalog,
} from './catalog.js';

/** What a session needs from its connection (a narrow port, so tests and the host can supply their own). */
export interface SessionPort {
  request<T = unknown>(method: string, params: unknown, opts?: { signal?: AbortSignal; timeoutMs?: number }): Promise<T>;
  notify(method: string, params: unknown): void;
  readonly promptCaps: { image: boolean; audio: boolean; embeddedContext: boolean };
}

export interface SessionInit {
  id: string;
  cwd: string;
  additionalDirectories?: string[];
  mcpServers?: unknown[];
  port: SessionPort;
  broker: PermissionBroker;
  hooks?: SessionHooks;
  logger: Logger;
  permissionMode?: PermissionMode;
  /** Rules shared by every session of the client (user config); session rules come after them. */
  baseRules?: () => PermissionRule[];
  now?: () => number;
  onClosed?: (s: Session) => void;
}

export type PromptInput = string | ContentBlock | ContentBlock[];

export function toBlocks(input: PromptInput): ContentBlock[] {
  if (typeof input === 'string') return [{ type: 'text', text: input }];
  return Array.isArray(input) ? input : [input];
}

/**
 * One ACP session: thread, state machine, turns and queue, catalog, usage, permissions.
 * Updates reach it synchronously from the transport (in wire order), so when a prompt's response
 * resolves, every update the agent sent before it is already in the thread.
 */
export class Session {
  readonly id: string;
  readonly cwd: string;
  readonly additionalDirectories: string[];
  mcpServers: unknown[];
  readonly thread: Thread = createThread();
  catalog: Catalog = { others: [] };
  permissionMode: PermissionMode;
  readonly rules: PermissionRule[] = [];

  private _state: SessionState = 'idle';
  private readonly bus: EventBus<SessionEvent>;
  private seq = 0;
  private turnSeq = 0;
  /** Turn ids stay unique across Session objects for one agent session (reloads, restarts): the store keys on them. */
  private readonly turnPrefix = randomUUID().slice(0, 8);
  private current: Turn | null = null;
  private readonly queue: Turn[] = [];
  private readonly usage: UsageTracker;
  private readonly hooks: SessionHooks;
  private readonly now: () => number;
  /** While replaying for a reload whose history we already hold, updates are not reduced again. */
  private discardReplay = false;
  /** Updates seen during the current load/resume request (a `{}` load with none = not found). */
  replayCount = 0;

  constructor(private readonly init: SessionInit) {
    this.id = init.id;
    this.cwd = init.cwd;
    this.additionalDirectories = init.additionalDirectories ?? [];
    this.mcpServers = init.mcpServers ?? [];
    this.hooks = init.hooks ?? {};
    this.now = init.now ?? Date.now;
    this.permissionMode = init.permissionMode ?? 'ask';
    this.usage = new UsageTracker(this.hooks.usageMode ?? 'per-turn');
    this.bus = new EventBus((err) => init.logger.error('session listener threw', { error: String(err) }));
  }

  get state(): SessionState {
    return this._state;
  }

  /** cwd + additional directories: the only places fs/terminal requests may touch. */
  get roots(): string[] {
    return [this.cwd, ...this.additionalDirectories];
  }

  get running(): Turn | null {
    return this.current;
  }

  get queued(): readonly Turn[] {
    return this.queue;
  }

  policy(): { mode: PermissionMode; rules: PermissionRule[] } {
    return { mode: this.permissionMode, rules: [...(this.init.baseRules?.() ?? []), ...this.rules] };
  }

  // ---- events ---------------------------------------------------------------------------------

  subscribe(fn: (e: SessionEvent) => void): () => void {
    return this.bus.subscribe(fn);
  }

  events(opts: { signal?: AbortSignal; until?: Promise<unknown> } = {}): AsyncIterableIterator<SessionEvent> {
    return this.bus.iterate(opts);
  }

  /** @internal */
  emit<K extends EventName>(type: K, body: Omit<EventOf<K>, 'type' | 'sessionId' | 'seq' | 'at'>): void {
    const ev = { type, sessionId: this.id, seq: ++this.seq, at: this.now(), ...body } as unknown as SessionEvent;
    this.bus.emit(ev);
  }

  private setState(event: Parameters<typeof transition>[1]): void {
    const previous = this._state;
    const next = transition(previous, event);
    if (next === previous) return;
    this._state = next;
    this.emit('session.state', { state: next, previous });
  }

  // ---- thread ---------------------------------------------------------------------------------

  /** @internal Apply a reducer action and fan its changes out as events. */
  apply(action: ThreadAction): void {
    const changes = reduce(this.thread, action);
    for (const c of changes) this.emitChange(c);
  }

  private emitChange(c: ThreadChange): void {
    switch (c.type) {
      case 'entry.added':
      case 'entry.updated':
        this.emit(c.type, { index: c.index, entry: c.entry });
        break;
      case 'plan.updated':
        this.emit('plan.updated', { plan: c.plan });
        break;
      case 'commands.updated':
        this.emit('commands.updated', { commands: c.commands });
        break;
      case 'mode.updated':
        this.emit('mode.updated', { modeId: c.modeId });
        this.setCatalog(applyCurrentMode(this.catalog, c.modeId));
        break;
      case 'config.updated':
        this.emit('config.updated', { configOptions: c.configOptions });
        this.setCatalog(applyConfigOptionUpdate(this.catalog, c.configOptions as never));
        break;
      case 'info.updated': {
        const body: { title?: string; updatedAt?: string } = {};
        if (c.title !== undefined) body.title = c.title;
        if (c.updatedAt !== undefined) body.updatedAt = c.updatedAt;
        this.emit('info.updated', body);
        break;
      }
      case 'context.updated':
        this.emit('context.updated', { context: c.context });
        break;
    }
  }

  /** @internal Called by the client's router for every `session/update` of this session, in wire order. */
  receiveUpdate(update: { sessionUpdate: string; [k: string]: unknown }): void {
    this.replayCount++;
    if (this.discardReplay) return;
    const mapped = this.hooks.mapUpdate ? this.hooks.mapUpdate(update) : update;
    if (mapped) this.apply({ type: 'update', update: mapped });
  }

  /** @internal */
  setCatalog(catalog: Catalog): void {
    this.catalog = catalog;
    this.emit('catalog.updated', { catalog });
  }

  /** @internal From a session/new|load|resume|fork result. */
  adoptSetup(result: unknown): void {
    const r = (result ?? {}) as { configOptions?: unknown; models?: unknown; modes?: unknown };
    if (r.configOptions || r.models || r.modes) this.setCatalog(normalizeCatalog(r as never, this.hooks.modelRows));
  }

  /** Adds a visible notice entry (used by providers and the host as well). */
  notice(level: 'info' | 'warning' | 'error', code: string, text: string, data?: unknown): void {
    this.apply({ type: 'notice', level, code, text, data });
  }

  // ---- turns ----------------------------------------------------------------------------------

  /**
   * Sends a prompt. While a turn runs, the prompt is queued (ACP has no steer; agents like Hermes
   * would otherwise run it inside the running request) and sent when that turn ends.
   */
  prompt(input: PromptInput): Turn {
    if (this._state === 'closed') throw new TalariaError('session_closed', `session ${this.id} is closed`);
    if (this._state === 'failed') {
      throw new TalariaError('session_failed', `session ${this.id} failed; it must be reloaded before prompting`);
    }
    const blocks = toBlocks(input);
    if (blocks.length === 0) throw new TalariaError('invalid_argument', 'a prompt needs at least one content block');
    const turn = new Turn(`turn-${this.turnPrefix}-${++this.turnSeq}`, blocks, (until, filter) => this.bus.iterate({ until, filter }));
    if (this.current) {
      this.queue.push(turn);
      this.emit('turn.queued', { turnId: turn.id, position: this.queue.length });
    } else {
      this.current = turn;
      void this.run(turn);
    }
    return turn;
  }

  private async run(turn: Turn): Promise<void> {
    turn.status = 'running';
    turn.startedAt = this.now();
    this.setState('prompt');
    const plan = (this.hooks.mapPrompt ?? defaultMapPrompt)(turn.prompt, this.init.port.promptCaps);
    turn.firstEntry = this.thread.entries.length;
    this.apply({ type: 'turn.started', turnId: turn.id, prompt: turn.prompt });
    this.emit('turn.started', { turnId: turn.id, prompt: turn.prompt });
    for (const n of plan.notices) this.notice('warning', n.code, n.text);

    let response: { stopReason?: string; usage?: unknown } | undefined;
    let error: TurnError | undefined;
    if (plan.blocks.length === 0) {
      error = { code: 'nothing_to_send', message: 'nothing in the prompt can be sent to this agent' };
    } else {
      try {
        response = await this.init.port.request('session/prompt', { sessionId: this.id, prompt: plan.blocks });
      } catch (err) {
        error = describeError(err);
      }
    }
    this.finish(turn, response, error);
  }

  private finish(turn: Turn, response: { stopReason?: string; usage?: unknown } | undefined, error?: TurnError): void {
    const agentStopReason = typeof response?.stopReason === 'string' ? response.stopReason : undefined;
    const cancelled = turn.cancelRequested || agentStopReason === 'cancelled';
    const outcome = error ? 'failed' : cancelled ? 'cancelled' : 'completed';
    this.apply({ type: 'turn.ended', turnId: turn.id, outcome });

    if (!error && !cancelled && this.hooks.classifyTurn) {
      const c = this.hooks.classifyTurn({ turnId: turn.id, stopReason: agentStopReason ?? '', text: this.turnText(turn), cancelled });
      if (c) {
        error = c;
        this.notice('error', c.code, c.message, c.data);
      }
    }
    const usage = response ? this.usage.turn(response.usage) : undefined;
    const result: TurnResult = {
      turnId: turn.id,
      stopReason: error ? 'error' : cancelled ? 'cancelled' : (agentStopReason ?? 'end_turn'),
      durationMs: this.now() - turn.startedAt,
    };
    if (agentStopReason !== undefined) result.agentStopReason = agentStopReason;
    if (usage) result.usage = usage;
    if (error) result.error = error;
    if (response !== undefined) result.response = response;

    this.current = null;
    const lost = error?.code === 'agent_crashed' || error?.code === 'connection_closed';
    if (this._state !== 'closed') this.setState(lost ? 'fail' : 'turn_end');
    const ended: Omit<EventOf<'turn.ended'>, 'type' | 'sessionId' | 'seq' | 'at'> = {
      turnId: turn.id,
      stopReason: result.stopReason,
      durationMs: result.durationMs,
    };
    if (usage) ended.usage = usage;
    if (error) ended.error = error;
    this.emit('turn.ended', ended);
    turn.resolve(result);

    if (lost || this._state === 'closed') this.dropQueue(error ?? { code: 'session_closed', message: 'session closed' });
    else {
      const next = this.queue.shift();
      if (next) {
        this.current = next;
        void this.run(next);
      }
    }
  }

  private turnText(turn: Turn): string {
    let text = '';
    const entries = this.thread.entries;
    for (let i = turn.firstEntry; i < entries.length; i++) {
      const e = entries[i]!;
      if (e.kind === 'assistant_message') text += e.text;
    }
    return text;
  }

  private dropQueue(error?: TurnError): void {
    const dropped = this.queue.splice(0);
    for (const t of dropped) {
      const r: TurnResult = { turnId: t.id, stopReason: error ? 'error' : 'cancelled', durationMs: 0, dropped: true };
      if (error) r.error = error;
      this.emit('turn.ended', { turnId: t.id, stopReason: r.stopReason, durationMs: 0, ...(error ? { error } : {}) });
      t.resolve(r);
    }
  }

  /**
   * Cancel = `session/cancel` + pending permissions answered `cancelled` + the queue dropped.
   * Streamed text is kept; late updates are still accepted. Resolves with the running turn's result.
   */
  async cancel(): Promise<TurnResult | undefined> {
    this.dropQueue();
    const turn = this.current;
    if (!turn || turn.cancelRequested) return turn?.result;
    turn.cancelRequested = true;
    this.setState('cancel');
    this.init.port.notify('session/cancel', { sessionId: this.id });
    this.init.broker.cancelSession(this.id);
    return turn.result;
  }

  // ---- permissions ----------------------------------------------------------------------------

  /** @internal The client routes `session/request_permission` here. */
  async requestPermission(params: { toolCall?: { toolCallId?: string; [k: string]: unknown }; options?: unknown[] }, requestId: string | number): Promise<PermissionOutcome> {
    const raw = params.toolCall && typeof params.toolCall === 'object' ? params.toolCall : { toolCallId: '' };
    const announced = String(raw.toolCallId ?? '');
    const linked = this.hooks.linkPermission?.({ ...raw, toolCallId: announced }, { thread: this.thread, openToolCalls: this.openToolCalls() });
    const toolCallId = linked ?? (announced || `permission-${String(requestId)}`);
    const known = this.findToolCall(toolCallId);
    // A linked request concerns a call we already show: keep its fields, only attach the permission.
    const toolCall = linked && linked !== announced ? { toolCallId } : { ...raw, toolCallId };
    this.apply({ type: 'permission', toolCall, permission: { requestId, status: 'pending' } });
    const outcome = await this.init.broker.request({
      requestKey: `${this.id}:${String(requestId)}`,
      sessionId: this.id,
      params: params as never,
      roots: this.roots,
      ...(known ? { known: { title: known.title, toolKind: known.toolKind, locations: known.locations, rawInput: known.rawInput, content: known.content } } : {}),
      ...(this.current ? { turnId: this.current.id } : {}),
    } as never);
    const options = (Array.isArray(params.options) ? params.options : []) as { optionId?: string; kind?: string }[];
    const chosen = outcome.outcome === 'selected' ? options.find((o) => o.optionId === outcome.optionId) : undefined;
    const status = outcome.outcome === 'cancelled' ? 'cancelled' : chosen?.kind?.startsWith('allow') ? 'allowed' : 'rejected';
    this.apply({
      type: 'permission',
      toolCall: { toolCallId },
      permission: {
        requestId,
        status,
        ...(chosen?.optionId ? { optionId: chosen.optionId } : {}),
        ...(chosen?.kind ? { optionKind: chosen.kind } : {}),
      },
    });
    return outcome;
  }

  /** Answer a pending permission request (from a person or a client). First answer wins. */
  answerPermission(requestKey: string, answer: PermissionAnswer, answeredBy?: string) {
    return this.init.broker.answer(requestKey, answer, answeredBy);
  }

  pendingPermissions() {
    return this.init.broker.pending(this.id);
  }

  openToolCalls(): ToolCallEntry[] {
    const out: ToolCallEntry[] = [];
    for (const idx of this.thread._ix.toolCalls.values()) {
      const e = this.thread.entries[idx];
      if (e?.kind === 'tool_call' && (e.status === 'pending' || e.status === 'in_progress')) out.push(e);
    }
    return out;
  }

  private findToolCall(id: string): ToolCallEntry | undefined {
    const idx = this.thread._ix.toolCalls.get(id);
    const e = idx === undefined ? undefined : this.thread.entries[idx];
    return e?.kind === 'tool_call' ? e : undefined;
  }

  // ---- models and modes -----------------------------------------------------------------------

  async setModel(modelId: string): Promise<void> {
    const plan = planSwitch(this.catalog, 'model', modelId);
    const res = await this.init.port.request<{ configOptions?: unknown[] } | null>(plan.method, { sessionId: this.id, ...plan.params });
    if (plan.method === 'session/set_config_option' && Array.isArray(res?.configOptions) && res.configOptions.length > 0) {
      this.setCatalog(applyConfigOptionUpdate(this.catalog, res.configOptions as never));
    } else this.setCatalog(applyCurrentModel(this.catalog, modelId));
    await this.hooks.afterSetModel?.({ reload: () => this.reload(), resetUsage: () => this.usage.reset() });
  }

  async setMode(modeId: string): Promise<void> {
    const plan = planSwitch(this.catalog, 'mode', modeId);
    const res = await this.init.port.request<{ configOptions?: unknown[] } | null>(plan.method, { sessionId: this.id, ...plan.params });
    if (plan.method === 'session/set_config_option' && Array.isArray(res?.configOptions) && res.configOptions.length > 0) {
      this.setCatalog(applyConfigOptionUpdate(this.catalog, res.configOptions as never));
    } else this.setCatalog(applyCurrentMode(this.catalog, modeId));
  }

  async setConfigOption(configId: string, value: unknown): Promise<void> {
    const res = await this.init.port.request<{ configOptions?: unknown[] } | null>('session/set_config_option', { sessionId: this.id, configId, value });
    if (Array.isArray(res?.configOptions) && res.configOptions.length > 0) {
      this.setCatalog(applyConfigOptionUpdate(this.catalog, res.configOptions as never));
    }
  }

  /**
   * Load the session again on the same agent (e.g. to re-register MCP servers after Hermes' set_model)
   * without duplicating the history we already hold: the replay is read and discarded.
   */
  async reload(): Promise<void> {
    this.discardReplay = true;
    try {
      const res = await this.init.port.request('session/load', { sessionId: this.id, cwd: this.cwd, mcpServers: this.mcpServers });
      this.adoptSetup(res);
    } finally {
      this.discardReplay = false;
    }
  }

  /** @internal While history is being replayed into a fresh thread. */
  beginReplay(discard = false): void {
    this.replayCount = 0;
    this.discardReplay = discard;
  }

  /** @internal */
  endReplay(): void {
    this.discardReplay = false;
  }

  // ---- end of life ----------------------------------------------------------------------------

  /** @internal The connection died: the running turn ends with an error, the session is failed. */
  connectionLost(err: unknown): void {
    if (this._state === 'closed') return;
    const error = describeError(err);
    this.init.broker.cancelSession(this.id);
    if (!this.current) {
      this.dropQueue(error);
      if (this._state !== 'failed') this.setState('fail');
    }
    // With a turn running, its prompt request rejects with the same error and finish() fails the session.
  }

  /** @internal After the host respawned the agent and reloaded this session. */
  recover(): void {
    if (this._state === 'failed') this.setState('recover');
  }

  /** @internal */
  markClosed(reason: string): void {
    if (this._state === 'closed') return;
    this.dropQueue({ code: 'session_closed', message: 'session closed' });
    this.init.broker.cancelSession(this.id);
    this.setState('close');
    this.emit('session.closed', { reason });
    this.init.onClosed?.(this);
  }
}

/** Errors become a TurnError: JSON-RPC errors keep their code and detail, a dead agent is `agent_crashed`. */
export function describeError(err: unknown): TurnError {
  if (err instanceof ConnectionClosedError) {
    const d = (err.details ?? {}) as { cause?: string; stderrTail?: string };
    const code = d.cause === 'closed' ? 'connection_closed' : 'agent_crashed';
    return { code, message: err.message, data: err.details };
  }
  if (err instanceof WireError) {
    return { code: 'agent_error', message: agentErrorMessage(err), data: { rpcCode: err.code, data: err.data } };
  }
  if (err instanceof TalariaError) return { code: err.code, message: err.message, ...(err.details ? { data: err.details } : {}) };
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}

/** Agents put the useful detail in different places: message, data.message, data.details, data.error… */
function agentErrorMessage(err: WireError): string {
  const d = err.data as Record<string, unknown> | undefined;
  const detail =
    (typeof d?.details === 'string' && d.details) ||
    (typeof d?.message === 'string' && d.message) ||
    (typeof d?.error === 'string' && d.error) ||
    (typeof d === 'string' && d) ||
    '';
  return detail && detail !== err.message ? `${err.message}: ${detail}` : err.message;
}
