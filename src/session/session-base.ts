/**
 * What a session is and who listens to it: its identity and settings, its state, its catalog,
 * and the three buses (events, frames, updates as taken). The update pipeline (session-stream.ts)
 * and the prompt/queue/steer/cancel façade (session.ts) build on it; all three are one object.
 */
import type { Frame, Logger } from '../protocol/types.js';
import type { TerminalView } from '../protocol/client-terminal.js';
import type { PermissionBroker } from '../permission/broker.js';
import type { PermissionMode, PermissionRule } from '../permission/types.js';
import { createThread, openToolCalls } from '../thread/index.js';
import type { Thread, ThreadAction, ToolCallEntry } from '../thread/types.js';
import { EventBus } from './bus.js';
import { batchNow } from './clock.js';
import { normalizeCatalog, type Catalog } from './catalog.js';
import {
  DEFAULT_MAX_PROMPT_BYTES,
  type EventBody,
  type SessionCore,
  type SessionInit,
  type SessionPort,
} from './core.js';
import type { EventName, SessionEvent } from './events.js';
import type { SessionHooks } from './hooks.js';
import { OtherRequests } from './other-requests.js';
import type { Update } from './router.js';
import { transition, type SessionEvent as StateEvent, type SessionState } from './state.js';

/** An update as the thread took it, with the agent's frame that brought it (its `update` is this one unless settlement or a quirk changed it). */
export interface TakenUpdate {
  update: Update;
  frame: Frame | undefined;
}

export abstract class SessionBase implements SessionCore {
  /** The agent's session id; it changes only when the host moves the conversation to a fresh agent session (reseat). */
  get id(): string {
    return this._id;
  }
  protected _id: string;
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

  protected _state: SessionState = 'idle';
  protected readonly bus: EventBus<SessionEvent>;
  protected readonly wire: EventBus<Frame>;
  protected readonly taken: EventBus<TakenUpdate>;
  /** Stamps the streamed entry events: the injected clock, else Date.now once per read (clock.ts). */
  protected readonly clock: () => number;

  constructor(protected readonly init: SessionInit) {
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
  }

  /** @internal */
  abstract emit<K extends EventName>(type: K, body: EventBody<K>): void;
  /** @internal Apply a reducer action and fan its changes out as events. */
  abstract apply(action: ThreadAction): void;

  get state(): SessionState {
    return this._state;
  }

  /** cwd + additional directories: the only places fs/terminal requests may touch. */
  get roots(): string[] {
    return [this.cwd, ...this.additionalDirectories];
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
  setState(event: StateEvent): void {
    const previous = this._state;
    const next = transition(previous, event);
    if (next === previous) return;
    this._state = next;
    this.emit('session.state', { state: next, previous });
  }

  // ---- catalog and notices --------------------------------------------------------------------

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
}
