import type { Readable, Writable } from 'node:stream';
import { TalariaError } from '../protocol/errors.js';
import { RequestError } from '../protocol/wire-error.js';
import { silentLogger, type Logger, type Frame, type ProtocolErrorEvent } from '../protocol/types.js';
import {
  connectAgent,
  type AgentConnection,
  type ClientCapabilityOverrides,
  type ClientHandlers,
} from '../protocol/connection.js';
import { spawnAgent, type SpawnOptions } from '../protocol/spawn.js';
import { createFsHandlers } from '../protocol/client-fs.js';
import { createTerminalManager, type TerminalView } from '../protocol/client-terminal.js';
import { notFound } from './other-requests.js';
import { buildChildEnv } from '../os/env.js';
import { background } from '../os/background.js';
import type { PermissionBroker } from '../permission/broker.js';
import { createSessionBroker } from './broker-wiring.js';
import { createEffectAuthorizer } from './effects.js';
import type { PermissionDecisionEvent, PermissionMode, PermissionRule } from '../permission/types.js';
import { EventBus } from './bus.js';
import type { SessionEvent } from './events.js';
import { authRequired } from './errors.js';
import type { SessionHooks } from './hooks.js';
import { SessionRouter, type Update } from './router.js';
import type { EarlyLimits } from './early-frames.js';
import type { FlowGate } from '../protocol/flow-gate.js';
import { Session, type SessionPort } from './session.js';
import { asRecord } from '../os/record.js';

export interface ClientOptions {
  logger?: Logger;
  /** Provider quirk switches (src/providers sets these for Hermes and others). */
  hooks?: SessionHooks;
  permission?: { mode?: PermissionMode; rules?: PermissionRule[]; timeoutMs?: number };
  /** Offer `fs/*` to the agent (default true); confined to each session's roots. */
  fs?: boolean | { read?: boolean; write?: boolean };
  /** Offer `terminal/*` to the agent (default true); runs inside the session's roots. */
  terminal?: boolean;
  /** Env for terminals the agent asks us to run (default: the allow-listed parent env). */
  terminalEnv?: Record<string, string>;
  clientInfo?: { name: string; version: string; title?: string };
  /** Raw frame tap (wire log, probes), every frame of the connection in wire order. */
  onFrame?: (frame: Frame) => void;
  /**
   * Called with each Session this client creates, before any of its frames or events: subscribe
   * here (subscribeFrames) to see its whole wire log, handshake and setup included.
   */
  onSession?: (session: Session) => void;
  /** Bounds of the buffer for frames of session ids not registered yet. */
  earlyLimits?: Partial<EarlyLimits>;
  onProtocolError?: (e: ProtocolErrorEvent) => void;
  /** Audit log of every permission decision. */
  onPermissionDecision?: (e: PermissionDecisionEvent) => void;
  /** A rule learned from an "always" answer (persist it). */
  onRule?: (sessionId: string, rule: PermissionRule) => void;
  /** Timeout for initialize and session setup requests (not prompts). */
  setupTimeoutMs?: number;
  /** Per-agent capability switches (gemini: no fs.readTextFile) and `_meta` (e.g. `terminal-auth`). */
  clientCapabilityOverrides?: ClientCapabilityOverrides;
  /** While held, the agent's output is not read (protocol/flow-gate.ts). */
  gate?: FlowGate;
}

export interface NewSessionOptions {
  cwd: string;
  additionalDirectories?: string[];
  mcpServers?: unknown[];
  permissionMode?: PermissionMode;
  signal?: AbortSignal;
}

export interface SessionListing {
  sessionId: string;
  cwd?: string;
  title?: string;
  updatedAt?: string;
  [k: string]: unknown;
}

/** What the agent said about itself in `initialize`. */
export interface ConnectionInfo {
  agentInfo?: { name?: string; title?: string; version?: string; [k: string]: unknown };
  protocolVersion?: unknown;
  agentCapabilities?: Record<string, unknown>;
  /** The initialize result's own `_meta` (vendor extensions such as `steering`). */
  meta?: Record<string, unknown>;
  /** The agent's auth methods as it listed them (`talaria acp` passes them on to the editor). */
  authMethods?: unknown[];
}

/**
 * One ACP connection to one agent process, with many sessions over it. Routes every frame (and
 * every `session/update`) to its session in wire order, answers the agent's permission, fs and
 * terminal requests, and rejects nothing silently.
 */
export class AcpClient {
  readonly broker: PermissionBroker;
  /** Every frame of this connection to the session it belongs to (router.ts). */
  readonly router: SessionRouter<Session>;
  private readonly bus: EventBus<SessionEvent>;
  private readonly logger: Logger;
  private readonly terminals: ReturnType<typeof createTerminalManager> | undefined;
  private hooks: SessionHooks | undefined;
  readonly connection: AgentConnection;

  private constructor(
    connect: (hooks: {
      handlers: ClientHandlers;
      onSessionUpdate: (params: unknown) => void;
      onFrame: (frame: Frame) => void;
      onProtocolError: (e: ProtocolErrorEvent) => void;
      onReadEnd: () => void;
      onOtherRequest: (method: string, params: unknown, ctx: { signal: AbortSignal }) => Promise<unknown>;
    }) => AgentConnection,
    private readonly opts: ClientOptions,
  ) {
    this.logger = opts.logger ?? silentLogger;
    this.router = new SessionRouter<Session>({
      logger: this.logger,
      ...(opts.earlyLimits ? { early: opts.earlyLimits } : {}),
    });
    this.hooks = opts.hooks;
    this.bus = new EventBus((err) => this.logger.error('client listener threw', { error: String(err) }));
    this.broker = createSessionBroker({
      lookup: (sessionId) => this.sessions.get(sessionId),
      fallback: opts.permission ?? {},
      ...(opts.permission?.timeoutMs !== undefined ? { timeoutMs: opts.permission.timeoutMs } : {}),
      logger: this.logger,
      ...(opts.onPermissionDecision ? { onDecision: opts.onPermissionDecision } : {}),
      ...(opts.onRule ? { onRule: opts.onRule } : {}),
    });

    const rootsFor = (sessionId: string) => this.sessions.get(sessionId)?.roots;
    // fs/* and terminal/create pass the same policy + broker as permission requests.
    const authorize = createEffectAuthorizer({ broker: this.broker, lookup: (id) => this.sessions.get(id) });
    const handlers: ClientHandlers = {
      requestPermission: (params: { sessionId: string }, ctx: { requestId: string | number }) => {
        const s = this.sessions.get(params.sessionId);
        // Never leave an agent waiting: an unknown session gets `cancelled`, which every agent treats as deny.
        if (!s) return Promise.resolve({ outcome: { outcome: 'cancelled' as const } });
        return s.requestPermission(params as never, ctx.requestId).then((outcome) => ({ outcome }));
      },
    } as ClientHandlers;
    const fs = opts.fs ?? true;
    const fsRead = fs === true || (typeof fs === 'object' && fs.read !== false);
    const fsWrite = fs === true || (typeof fs === 'object' && fs.write !== false);
    if (fsRead || fsWrite) {
      const f = createFsHandlers({ rootsFor, logger: this.logger, authorize });
      if (fsRead) handlers.readTextFile = f.readTextFile;
      if (fsWrite) handlers.writeTextFile = f.writeTextFile;
    }
    if (opts.terminal ?? true) {
      const env = opts.terminalEnv ?? buildChildEnv(process.env);
      this.terminals = createTerminalManager({ rootsFor, env: () => env, logger: this.logger, authorize });
      handlers.terminal = this.terminals;
    }
    const tap = opts.onFrame;
    this.connection = connect({
      handlers,
      onSessionUpdate: (params) => this.route(params),
      onFrame: (f) => {
        this.router.frame(f);
        tap?.(f);
      },
      onProtocolError: (e) => this.protocolError(e),
      onReadEnd: () => this.router.readEnd(),
      onOtherRequest: (method, params, ctx) => this.otherRequest(method, params, ctx.signal),
    });
    this.connection.closed.then(
      (info) => {
        this.broker.closeAll();
        background(this.terminals?.disposeAll(), this.logger, 'disposing terminals');
        const err = info.error ?? new TalariaError('connection_closed', 'agent connection closed');
        for (const s of this.sessions.values()) s.connectionLost(err);
      },
      (err: unknown) => this.logger.error('connection close handling failed', { error: String(err) }),
    );
  }

  /**
   * An agent request no handler here takes: to its session's taker (the editor of `talaria acp`);
   * one naming no session goes to the first session that has a taker. Else -32601.
   */
  private otherRequest(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    const sid = (params as { sessionId?: unknown } | null | undefined)?.sessionId;
    const s =
      typeof sid === 'string' ? this.sessions.get(sid) : [...this.sessions.values()].find((x) => x.otherRequests.taken);
    return s ? s.otherRequests.handle(method, params, signal) : Promise.reject(notFound(method));
  }

  /** A terminal this connection runs for `sessionId` (undefined once released). */
  terminalView(sessionId: string, terminalId: string): TerminalView | undefined {
    return this.terminals?.view(sessionId, terminalId);
  }

  /** Sessions on this connection, by ACP session id. */
  get sessions(): ReadonlyMap<string, Session> {
    return this.router.sessions;
  }

  /** What the agent said about itself in `initialize`. */
  get info(): ConnectionInfo {
    return connectionInfo(this.connection.initializeResponse);
  }

  /**
   * Routes `session`'s frames, updates and requests to it from now on: first this connection's
   * handshake, then what arrived for it meanwhile (the host moves sessions between processes).
   */
  attach(session: Session): void {
    this.router.attach(session.id, session);
  }

  /** Stops routing to `session` (its later frames wait, bounded, like any unknown session's). */
  detach(session: Session): void {
    this.router.detach(session.id, session);
  }

  /** A session id whose frames and updates must never be routed (Hermes' stray resume sessions). */
  ignore(sessionId: string): void {
    this.router.ignore(sessionId);
  }

  /** Spawn an agent command and initialize it. */
  static async spawn(spec: SpawnOptions, opts: ClientOptions = {}): Promise<AcpClient> {
    const proc = await spawnAgent({ ...spec, ...(opts.logger ? { logger: opts.logger } : {}) });
    const client = new AcpClient((hooks) => connectAgent({ process: proc, ...hooks, ...connectExtras(opts) }), opts);
    await client.initialize();
    return client;
  }

  /** Use an existing pair of streams (in-memory agents, sockets). */
  static async connect(streams: { input: Readable; output: Writable }, opts: ClientOptions = {}): Promise<AcpClient> {
    const client = new AcpClient((hooks) => connectAgent({ streams, ...hooks, ...connectExtras(opts) }), opts);
    await client.initialize();
    return client;
  }

  private async initialize(): Promise<void> {
    try {
      await this.connection.initialize({ timeoutMs: this.opts.setupTimeoutMs ?? 60_000 });
    } catch (err) {
      await this.connection.close();
      throw err;
    }
  }

  get capabilities() {
    return this.connection.capabilities;
  }

  /**
   * The quirk hooks of sessions opened from now on. The provider layer picks them from what the
   * agent said in `initialize` (providers/quirks), which is only known after spawn().
   */
  useHooks(hooks: SessionHooks): void {
    this.hooks = hooks;
  }

  /** Every session's events, in order (a UI or store subscribes once). */
  subscribe(fn: (e: SessionEvent) => void): () => void {
    return this.bus.subscribe(fn);
  }

  events(opts: { signal?: AbortSignal } = {}): AsyncIterableIterator<SessionEvent> {
    return this.bus.iterate(opts);
  }

  /** Malformed frames do not kill the connection: they are reported to every listener (sessionId '*'). */
  private protocolError(e: ProtocolErrorEvent): void {
    this.opts.onProtocolError?.(e);
    this.bus.emit({
      type: 'protocol.error',
      sessionId: '*',
      seq: 0,
      at: Date.now(),
      kind: e.kind,
      preview: e.preview,
      bytes: e.bytes,
    });
  }

  /** A live `session/update`; one for a session not registered yet was kept as a frame by the router. */
  private route(raw: unknown): void {
    const params = raw as { sessionId?: unknown; update?: Update } | undefined;
    const id = params?.sessionId;
    const update = params?.update;
    if (typeof id !== 'string' || !update || typeof update.sessionUpdate !== 'string') {
      this.protocolError({
        kind: 'invalid_jsonrpc',
        preview: (JSON.stringify(params) ?? String(params)).slice(0, 200),
        bytes: 0,
        detail: 'session/update without sessionId or update',
      });
      return;
    }
    this.router.update(id, update);
  }

  private port(): SessionPort {
    const caps = this.connection.capabilities;
    return {
      request: (method, params, o) => this.connection.request(method, params, o),
      notify: (method, params) => this.connection.notify(method, params),
      promptCaps: { image: caps.promptImage, audio: caps.promptAudio, embeddedContext: caps.promptEmbeddedContext },
      authMethods: () => caps.authMethods,
      terminal: (sid, tid) => this.terminalView(sid, tid),
    };
  }

  private register(id: string, o: NewSessionOptions): Session {
    const s = new Session({
      id,
      cwd: o.cwd,
      additionalDirectories: o.additionalDirectories ?? [],
      mcpServers: o.mcpServers ?? [],
      port: this.port(),
      broker: this.broker,
      logger: this.logger,
      ...(this.hooks ? { hooks: this.hooks } : {}),
      permissionMode: o.permissionMode ?? this.opts.permission?.mode ?? 'ask',
      baseRules: () => this.opts.permission?.rules ?? [],
      onClosed: () => {
        this.router.detach(id, s);
        background(this.terminals?.disposeSession(id), this.logger, 'disposing terminals', { sessionId: id });
      },
    });
    // Every event of the session, once per streamed update: skipped while nobody listens here.
    s.subscribe((e) => {
      if (this.bus.size !== 0) this.bus.emit(e);
    });
    this.opts.onSession?.(s);
    this.attach(s);
    return s;
  }

  private setupParams(o: NewSessionOptions): Record<string, unknown> {
    const p: Record<string, unknown> = { cwd: o.cwd, mcpServers: o.mcpServers ?? [] };
    if (o.additionalDirectories?.length) p.additionalDirectories = o.additionalDirectories;
    return p;
  }

  private reqOpts(o: { signal?: AbortSignal }) {
    return { timeoutMs: this.opts.setupTimeoutMs ?? 120_000, ...(o.signal ? { signal: o.signal } : {}) };
  }

  async newSession(o: NewSessionOptions): Promise<Session> {
    let res: { sessionId?: unknown };
    try {
      res = await this.connection.request<{ sessionId?: unknown }>('session/new', this.setupParams(o), this.reqOpts(o));
    } catch (err) {
      throw authRequired(err, { authMethods: this.capabilities.authMethods }) ?? err;
    }
    if (typeof res?.sessionId !== 'string' || !res.sessionId) {
      throw new TalariaError('agent_error', 'session/new answered without a sessionId', { response: res });
    }
    const s = this.register(res.sessionId, o);
    s.adoptSetup(res);
    return s;
  }

  /** Load a stored session: the agent replays its history into the thread before answering. */
  async loadSession(sessionId: string, o: NewSessionOptions): Promise<Session> {
    if (!this.capabilities.supportsLoad)
      throw new TalariaError('unsupported', 'this agent cannot load sessions (no loadSession capability)');
    return this.reopen('session/load', sessionId, o);
  }

  /** Resume without replay (per spec; some agents replay anyway, which then lands in the thread). */
  async resumeSession(sessionId: string, o: NewSessionOptions): Promise<Session> {
    if (!this.capabilities.supportsSession('resume'))
      throw new TalariaError('unsupported', 'this agent cannot resume sessions');
    return this.reopen('session/resume', sessionId, o);
  }

  private async reopen(
    method: 'session/load' | 'session/resume',
    sessionId: string,
    o: NewSessionOptions,
  ): Promise<Session> {
    if (this.sessions.has(sessionId))
      throw new TalariaError('invalid_state', `session ${sessionId} is already open on this connection`);
    // Register first: the replay arrives as session/update before the response.
    const s = this.register(sessionId, o);
    s.beginReplay();
    let res: unknown;
    try {
      res = await this.connection.request(method, { sessionId, ...this.setupParams(o) }, this.reqOpts(o));
    } catch (err) {
      this.detach(s);
      if (err instanceof RequestError && (err.code === -32002 || /not found/i.test(err.message))) {
        throw new TalariaError('session_not_found', `the agent has no session ${sessionId}`, { rpcCode: err.code });
      }
      throw err;
    } finally {
      s.endReplay();
    }
    const empty =
      res === null || res === undefined || (typeof res === 'object' && Object.keys(res as object).length === 0);
    if (method === 'session/load' && empty && s.replayCount === 0 && (this.hooks?.loadEmptyMeansNotFound ?? false)) {
      this.detach(s);
      throw new TalariaError('session_not_found', `the agent has no session ${sessionId} (it answered {})`);
    }
    s.adoptSetup(res);
    return s;
  }

  /** Fork (unstable ACP): a new session with the source's history. */
  async forkSession(sessionId: string, o: NewSessionOptions): Promise<Session> {
    if (!this.capabilities.supportsSession('fork'))
      throw new TalariaError('unsupported', 'this agent cannot fork sessions');
    const res = await this.connection.request<{ sessionId?: unknown }>(
      'session/fork',
      { sessionId, ...this.setupParams(o) },
      this.reqOpts(o),
    );
    if (typeof res?.sessionId !== 'string' || !res.sessionId) {
      throw new TalariaError('session_not_found', `the agent could not fork ${sessionId}`, { response: res });
    }
    const s = this.register(res.sessionId, o);
    s.adoptSetup(res);
    return s;
  }

  /** All sessions the agent lists (follows cursors), optionally only those under `cwd`. */
  async listSessions(o: { cwd?: string; signal?: AbortSignal; maxPages?: number } = {}): Promise<SessionListing[]> {
    if (!this.capabilities.supportsSession('list'))
      throw new TalariaError('unsupported', 'this agent cannot list sessions');
    const out: SessionListing[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < (o.maxPages ?? 1000); page++) {
      const params: Record<string, unknown> = {};
      if (o.cwd) params.cwd = o.cwd;
      if (cursor) params.cursor = cursor;
      const res = await this.connection.request<{ sessions?: SessionListing[]; nextCursor?: string | null }>(
        'session/list',
        params,
        this.reqOpts(o),
      );
      for (const s of res?.sessions ?? []) {
        if (typeof s?.sessionId === 'string' && !seen.has(s.sessionId)) {
          seen.add(s.sessionId);
          out.push(s);
        }
      }
      const next = typeof res?.nextCursor === 'string' && res.nextCursor ? res.nextCursor : undefined;
      // A cursor that does not move would loop forever on a buggy agent.
      if (!next || next === cursor) break;
      cursor = next;
    }
    return out;
  }

  /** Close a session: cancel what runs, tell the agent when it supports close, free its terminals. */
  async closeSession(session: Session, reason = 'closed by client'): Promise<void> {
    if (session.state === 'running' || session.state === 'cancelling') await session.cancel();
    if (this.capabilities.supportsSession('close') && !this.connection.isClosed) {
      try {
        await this.connection.request('session/close', { sessionId: session.id }, { timeoutMs: 10_000 });
      } catch (err) {
        this.logger.warn('session/close failed', { sessionId: session.id, error: String(err) });
      }
    }
    session.markClosed(reason);
  }

  get closed() {
    return this.connection.closed;
  }

  /** Close the connection (and terminate the agent process when we spawned it). */
  async close(): Promise<void> {
    for (const s of [...this.sessions.values()]) s.markClosed('client closed');
    await this.connection.close();
  }
}

function connectExtras(opts: ClientOptions) {
  return {
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.clientInfo ? { clientInfo: opts.clientInfo } : {}),
    ...(opts.clientCapabilityOverrides ? { clientCapabilityOverrides: opts.clientCapabilityOverrides } : {}),
    ...(opts.gate ? { gate: opts.gate } : {}),
  };
}

function connectionInfo(result: Record<string, unknown> | undefined): ConnectionInfo {
  const r = result ?? {};
  const info: ConnectionInfo = {};
  const agentInfo = asRecord(r.agentInfo);
  if (agentInfo) info.agentInfo = agentInfo as ConnectionInfo['agentInfo'];
  if (r.protocolVersion !== undefined) info.protocolVersion = r.protocolVersion;
  const caps = asRecord(r.agentCapabilities);
  if (caps) info.agentCapabilities = caps;
  const meta = asRecord(r._meta);
  if (meta) info.meta = meta;
  if (Array.isArray(r.authMethods)) info.authMethods = r.authMethods;
  return info;
}
