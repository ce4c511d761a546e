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
  /** The agent's initialize authMethods (an auth error lists them when its data has none). */
  readonly authMethods?: () => readonly unknown[];
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
  /** Tool calls open when the running (or last) turn was cancelled: whatever the agent reports later, they end cancelled. */
  private readonly cancelledCalls = new Set<string>();
  /** hooks.reopenAfterFailedTurn: the agent's session must be closed and resumed before the next prompt. */
  private reopenPending = false;

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
    if (update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') update = this.afterCancel(update);
    const mapped = this.hooks.mapUpdate ? this.hooks.mapUpdate(update) : update;
    if (mapped) this.apply({ type: 'update', update: mapped });
  }

  /**
   * After a cancel the agent's word on a killed tool varies (opencode/kilo: completed, codex: failed,
   * claude/codex: nothing): for a call that was open at the cancel, or started after it, a terminal
   * status from the agent is dropped (its output is kept), so the cancelled turn's end settles it
   * `cancelled` by cancel, like every other call of that turn.
   */
  private afterCancel(update: { sessionUpdate: string; [k: string]: unknown }): { sessionUpdate: string; [k: string]: unknown } {
    const id = typeof update.toolCallId === 'string' ? update.toolCallId : '';
    if (!id) return update;
    if (this.current?.cancelRequested && !this.thread._ix.toolCalls.has(id)) this.cancelledCalls.add(id);
    if (this.cancelledCalls.has(id) && (update.status === 'completed' || update.status === 'failed')) {
      const { status: _dropped, ...rest } = update;
      return rest as { sessionUpdate: string; [k: string]: unknown };
    }
    return update;
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
    this.cancelledCalls.clear();
    if (this.reopenPending) {
      this.reopenPending = false;
      await this.reopenAtAgent();
    }
    const plan = (this.hooks.mapPrompt ?? defaultMapPrompt)(turn.prompt, this.init.port.promptCaps);
    turn.firstEntry = this.thread.entries.length;
    this.apply({ type: 'turn.started', turnId: turn.id, prompt: turn.prompt });
    this.emit('turn.started', { turnId: turn.id, prompt: turn.prompt });
    for (const n of plan.notices) this.notice('warning', n.code, n.text);

    let response: { stopReason?: string; usage?: unknown } | undefined;
    let error: TurnError | undefined;
    if (plan.blocks.length === 0) {
      error = { code: 'nothing_to_send', message: 'nothing in the prompt can be sent to this agent' };
    } else if (turn.cancelRequested) {
      response = { stopReason: 'cancelled' }; // cancelled while the session was being reopened
    } else {
      try {
        response = await this.init.port.request('session/prompt', { sessionId: this.id, prompt: plan.blocks });
      } catch (err) {
        error = describeError(err, this.init.port.authMethods?.());
      }
    }
    this.finish(turn, response, error);
  }

  /**
   * The Claude adapters leave their prompt stream one message behind after an error, a cancel or
   * (older adapter) a rejected permission: the next prompt answers at once with nothing or with the
   * previous answer. Closing (where supported) and resuming the session at the agent gives it a
   * fresh stream with the same history.
   */
  private async reopenAtAgent(): Promise<void> {
    const params: Record<string, unknown> = { sessionId: this.id, cwd: this.cwd, mcpServers: this.mcpServers };
    if (this.additionalDirectories.length) params.additionalDirectories = this.additionalDirectories;
    try {
      // Agents without session/close (claude-code-acp) replace the session on resume anyway.
      await this.init.port.request('session/close', { sessionId: this.id }, { timeoutMs: 30_000 }).catch(() => undefined);
      this.adoptSetup(await this.init.port.request('session/resume', params, { timeoutMs: 60_000 }));
    } catch (err) {
      this.init.logger.warn('reopening the session after a failed turn did not work', { sessionId: this.id, error: String(err) });
      this.notice('warning', 'reopen_failed', 'The agent could not reopen the session after the failed turn; the next answer may be stale.');
    }
  }

  private finish(turn: Turn, response: { stopReason?: string; usage?: unknown } | undefined, error?: TurnError): void {
    const agentStopReason = typeof response?.stopReason === 'string' ? response.stopReason : undefined;
    // Cancelled means we (the user, Talaria) cancelled. An agent that ends the turn `cancelled`
    // unasked after a permission was refused (codex's reject option) was denied, not cancelled.
    const denied = !turn.cancelRequested && agentStopReason === 'cancelled' && this.deniedIn(turn);
    const cancelled = turn.cancelRequested || agentStopReason === 'cancelled';
    const outcome = error ? 'failed' : cancelled ? 'cancelled' : 'completed';
    // Nobody can answer a question about a turn that is over (the agent gave up on it).
    this.init.broker.cancelTurn(turn.id);
    this.apply({ type: 'turn.ended', turnId: turn.id, outcome });

    if (!error && !cancelled && this.hooks.classifyTurn) {
      const toolCalls = this.thread.entries.slice(turn.firstEntry).filter((e) => e.kind === 'tool_call').length;
      const c = this.hooks.classifyTurn({ turnId: turn.id, stopReason: agentStopReason ?? '', text: this.turnText(turn), cancelled, toolCalls });
      if (c) {
        error = c;
        this.notice('error', c.code, c.message, c.data);
      }
    }
    const usage = response ? this.usage.turn(response.usage) : undefined;
    const result: TurnResult = {
      turnId: turn.id,
      stopReason: error ? 'error' : denied ? 'permission_denied' : cancelled ? 'cancelled' : (agentStopReason ?? 'end_turn'),
      durationMs: this.now() - turn.startedAt,
    };
    if (agentStopReason !== undefined) result.agentStopReason = agentStopReason;
    if (usage) result.usage = usage;
    if (error) result.error = error;
    if (response !== undefined) result.response = response;

    this.current = null;
    const lost = error?.code === 'agent_crashed' || error?.code === 'connection_closed';
    if (this.hooks.reopenAfterFailedTurn && !lost && (error || cancelled || this.rejectedIn(turn))) this.reopenPending = true;
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

  /** A permission of this turn was refused (rejected, or cancelled unanswered). */
  private deniedIn(turn: Turn): boolean {
    return this.thread.entries.slice(turn.firstEntry).some((e) => e.kind === 'tool_call' && (e.permission?.status === 'rejected' || e.permission?.status === 'cancelled'));
  }

  private rejectedIn(turn: Turn): boolean {
    return this.thread.entries.slice(turn.firstEntry).some((e) => e.kind === 'tool_call' && e.permission?.status === 'rejected');
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
    for (const e of this.openToolCalls()) if (e.turnId === turn.id) this.cancelledCalls.add(e.toolCallId);
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
    // A linked request concerns a call we already show: keep its fields, only attach the permission,
    // and the request's diff when the call has none (Hermes puts the diff only in the approval).
    const isDiff = (c: unknown) => (c as { type?: unknown } | null)?.type === 'diff';
    const diffs = linked && linked !== announced && Array.isArray(raw.content) && !(known?.content ?? []).some(isDiff) ? raw.content.filter(isDiff) : [];
    const toolCall = linked && linked !== announced ? { toolCallId, ...(diffs.length > 0 ? { content: [...(known?.content ?? []), ...diffs] } : {}) } : { ...raw, toolCallId };
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

  /** The agent reset its cumulative counters (Hermes: set_model, a new process). */
  resetUsage(): void {
    this.usage.reset();
  }

  // ---- models and modes -----------------------------------------------------------------------

  async setModel(modelId: string): Promise<void> {
    const plan = planSwitch(this.catalog, 'model', modelId);
    const res = await this.init.port.request<{ configOptions?: unknown[] } | null>(plan.method, { sessionId: this.id, ...plan.params });
    if (plan.method === 'session/set_config_option' && Array.isArray(res?.configOptions) && res.configOptions.length > 0) {
      this.setCatalog(applyConfigOptionUpdate(this.catalog, res.configOptions as never));
    } else this.setCatalog(applyCurrentModel(this.catalog, modelId));
    await this.hooks.afterSetModel?.({ reload: () => this.reload(), resetUsage: () => this.resetUsage() });
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

/**
 * Errors become a TurnError: a dead agent is `agent_crashed`, auth required (-32000) is
 * `auth_required` listing the auth methods, any other JSON-RPC error one `agent_error` shape.
 */
export function describeError(err: unknown, authMethods?: readonly unknown[]): TurnError {
  if (err instanceof ConnectionClosedError) {
    const d = (err.details ?? {}) as { cause?: string; stderrTail?: string };
    const code = d.cause === 'closed' ? 'connection_closed' : 'agent_crashed';
    return { code, message: err.message, data: err.details };
  }
  if (err instanceof WireError && err.code === -32000) {
    const d = err.data as { authMethods?: unknown } | undefined;
    const methods = Array.isArray(d?.authMethods) && d.authMethods.length > 0 ? d.authMethods : [...(authMethods ?? [])];
    return { code: 'auth_required', message: err.message, data: { rpcCode: err.code, authMethods: methods, ...(err.data !== undefined ? { data: err.data } : {}) } };
  }
  if (err instanceof WireError) {
    return agentError(err.message, { rpcCode: err.code, data: err.data });
  }
  if (err instanceof TalariaError) return { code: err.code, message: err.message, ...(err.details ? { data: err.details } : {}) };
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}

/** The one `agent_error` shape: `data.detail` (the provider's words), `data.httpStatus` when known, the raw rest. */
export interface AgentErrorData {
  rpcCode?: number;
  httpStatus?: number;
  detail?: string;
  data?: unknown;
  /** Where the error was found when the agent did not send a JSON-RPC error ('text': streamed as the answer). */
  source?: 'rpc' | 'text' | 'silence';
  /** opencode/kilo name the failing part instead of a message. */
  service?: string;
  errorName?: string;
}

/**
 * Builds the normalized model/agent error. Agents put the provider's detail in `message`,
 * `data.message`, `data.details`, `data.error(.message)` or `data.{service,errorName}`; gemini uses
 * the HTTP status as the JSON-RPC code; an "Error: 400 …"/"API Error: 400" text gives the status too.
 */
export function agentError(message: string, o: { rpcCode?: number; data?: unknown; source?: AgentErrorData['source'] } = {}): TurnError {
  const d = o.data as Record<string, unknown> | string | undefined;
  const obj = typeof d === 'object' && d !== null ? d : undefined;
  const nested = obj?.error as Record<string, unknown> | string | undefined;
  const service = typeof obj?.service === 'string' ? obj.service : undefined;
  const errorName = typeof obj?.errorName === 'string' ? obj.errorName : undefined;
  const raw =
    (typeof obj?.details === 'string' && obj.details) ||
    (typeof obj?.message === 'string' && obj.message) ||
    (typeof nested === 'string' && nested) ||
    (typeof nested === 'object' && nested !== null && typeof nested.message === 'string' && nested.message) ||
    (typeof d === 'string' && d) ||
    undefined;
  // Providers' JSON error bodies end up as text (codex: data.message, gemini and claude: the message).
  const body = embeddedJson(raw) ?? embeddedJson(message);
  const named = service || errorName ? [service, errorName].filter(Boolean).join(': ') : undefined;
  // An error found in the answer text (copilot) or in the agent's own log (pi) is its own detail.
  const detail = body?.message ?? raw ?? named ?? (o.source === 'text' || o.source === 'silence' ? message : undefined);
  const out: AgentErrorData = { source: o.source ?? 'rpc' };
  if (o.rpcCode !== undefined) out.rpcCode = o.rpcCode;
  const fromCode = o.rpcCode !== undefined && o.rpcCode >= 400 && o.rpcCode <= 599 ? o.rpcCode : undefined;
  const fromText = /\b(?:error|status|http)\W{0,3}([45]\d\d)\b|^\s*([45]\d\d)\b/im.exec(`${message}\n${raw ?? ''}`);
  const status = fromCode ?? body?.status ?? (fromText ? Number(fromText[1] ?? fromText[2]) : undefined);
  if (status !== undefined) out.httpStatus = status;
  if (detail) out.detail = detail;
  if (service || errorName) Object.assign(out, { ...(service ? { service } : {}), ...(errorName ? { errorName } : {}) });
  if (o.data !== undefined) out.data = o.data;
  const shown = raw && !message.includes(raw) ? `${message}: ${raw}` : message;
  return { code: 'agent_error', message: detail && !shown.includes(detail) ? `${shown}: ${detail}` : shown, data: out };
}

/** `{"error":{"message","code"}}` (OpenAI, Gemini, Anthropic bodies) inside a text, if there is one. */
function embeddedJson(text: string | undefined): { message?: string; status?: number } | undefined {
  if (!text) return undefined;
  const i = text.indexOf('{');
  const j = text.lastIndexOf('}');
  if (i < 0 || j <= i) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text.slice(i, j + 1));
  } catch {
    return undefined;
  }
  const o = v as { error?: { message?: unknown; code?: unknown } | string; message?: unknown };
  const e = typeof o?.error === 'object' && o.error !== null ? o.error : undefined;
  const message = typeof e?.message === 'string' ? e.message : typeof o?.error === 'string' ? o.error : typeof o?.message === 'string' ? o.message : undefined;
  const code = typeof e?.code === 'number' && e.code >= 400 && e.code <= 599 ? e.code : undefined;
  if (message === undefined && code === undefined) return undefined;
  return { ...(message !== undefined ? { message } : {}), ...(code !== undefined ? { status: code } : {}) };
}
