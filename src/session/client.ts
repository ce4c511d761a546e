import type { Readable, Writable } from 'node:stream';
import { TalariaError } from '../protocol/errors.js';
import { silentLogger, type Logger, type ProtocolErrorEvent } from '../protocol/types.js';
import { connectAgent, type AgentConnection } from '../protocol/connection.js';
import { spawnAgent, type SpawnOptions } from '../protocol/spawn.js';
import type { TerminalManager, TerminalView } from '../protocol/client-terminal.js';
import { background } from '../os/background.js';
import type { PermissionBroker } from '../permission/broker.js';
import { createSessionBroker } from './broker-wiring.js';
import { EventBus } from './bus.js';
import type { SessionEvent } from './events.js';
import type { SessionHooks } from './hooks.js';
import { SessionRouter, type Update } from './router.js';
import { Session } from './session.js';
import { agentRequestHandlers, otherRequest, sessionPort } from './client-handlers.js';
import {
  connectExtras,
  connectionInfo,
  type ClientOptions,
  type ConnectHooks,
  type ConnectionInfo,
  type NewSessionOptions,
  type SessionListing,
} from './client-options.js';
import {
  closeSession,
  forkSession,
  listSessions,
  loadSession,
  newSession,
  resumeSession,
  type SetupHost,
} from './client-setup.js';

export type { ClientOptions, ConnectionInfo, NewSessionOptions, SessionListing } from './client-options.js';

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
  private readonly terminals: TerminalManager | undefined;
  private hooks: SessionHooks | undefined;
  readonly connection: AgentConnection;

  private constructor(
    connect: (hooks: ConnectHooks) => AgentConnection,
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

    const { handlers, terminals } = agentRequestHandlers({
      lookup: (id) => this.sessions.get(id),
      broker: this.broker,
      logger: this.logger,
      opts,
    });
    this.terminals = terminals;
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
      onOtherRequest: (method, params, ctx) => otherRequest(this.sessions, method, params, ctx.signal),
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

  private register(id: string, o: NewSessionOptions): Session {
    const s = new Session({
      id,
      cwd: o.cwd,
      additionalDirectories: o.additionalDirectories ?? [],
      mcpServers: o.mcpServers ?? [],
      port: sessionPort(this.connection, (sid, tid) => this.terminalView(sid, tid)),
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

  /** Session setup's view of this client (client-setup.ts). */
  private setupHost(): SetupHost {
    return {
      connection: this.connection,
      sessions: this.sessions,
      hooks: () => this.hooks,
      setupTimeoutMs: this.opts.setupTimeoutMs,
      logger: this.logger,
      register: (id, o) => this.register(id, o),
      detach: (s) => this.detach(s),
    };
  }

  newSession(o: NewSessionOptions): Promise<Session> {
    return newSession(this.setupHost(), o);
  }

  /** Load a stored session: the agent replays its history into the thread before answering. */
  loadSession(sessionId: string, o: NewSessionOptions): Promise<Session> {
    return loadSession(this.setupHost(), sessionId, o);
  }

  /** Resume without replay (per spec; some agents replay anyway, which then lands in the thread). */
  resumeSession(sessionId: string, o: NewSessionOptions): Promise<Session> {
    return resumeSession(this.setupHost(), sessionId, o);
  }

  /** Fork (unstable ACP): a new session with the source's history. */
  forkSession(sessionId: string, o: NewSessionOptions): Promise<Session> {
    return forkSession(this.setupHost(), sessionId, o);
  }

  /** All sessions the agent lists (follows cursors), optionally only those under `cwd`. */
  listSessions(o: { cwd?: string; signal?: AbortSignal; maxPages?: number } = {}): Promise<SessionListing[]> {
    return listSessions(this.setupHost(), o);
  }

  /** Close a session: cancel what runs, tell the agent when it supports close, free its terminals. */
  closeSession(session: Session, reason = 'closed by client'): Promise<void> {
    return closeSession(this.setupHost(), session, reason);
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
