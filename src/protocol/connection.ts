/**
 * The SDK adapter — the only file in src/ that imports the SDK's runtime.
 *
 * The SDK does typed requests, agent→client request dispatch (-32601 for unknown methods) and
 * cancellation. We keep for ourselves: `session/update` (diverted at the transport, raw, in
 * arrival order, never zod-parsed), responses to ids we never sent (the SDK would print them to stderr),
 * and the error model — callers only ever see RequestError, TalariaError or ConnectionClosedError,
 * never the SDK's plain `Error("ACP connection closed")`.
 */
import * as acp from '@agentclientprotocol/sdk';
import {
  buildClientCapabilities,
  capabilitiesView,
  CLIENT_HANDLER_METHODS,
  handlerFor,
  type AgentCapabilitiesView,
  type ClientCapabilityOverrides,
  type ClientHandler,
  type ClientHandlers,
} from './capabilities.js';
import { ConnectionClosedError, TalariaError, type CloseCause } from './errors.js';
import { RequestError, withMethod } from './wire-error.js';
import type { AgentProcess } from './spawn.js';
import { background } from '../os/background.js';
import type { FlowGate } from './flow-gate.js';
import { createTransport, type Transport, type TransportCloseInfo, type TransportStats } from './transport.js';
import {
  silentLogger,
  type Frame,
  type JsonRpcId,
  type Logger,
  type ProtocolErrorEvent,
  type RawMessage,
} from './types.js';
import type { Readable, Writable } from 'node:stream';

export type {
  AgentCapabilitiesView,
  ClientCapabilityOverrides,
  ClientHandler,
  ClientHandlers,
  HandlerContext,
  TerminalHandlers,
} from './capabilities.js';

// ACP over WebSocket, the SDK's experimental transports: the server side for `/acp` on
// `talaria serve`, the client stream for `talaria acp --attach` (this file is the SDK's one door).
export { AcpServer, type AgentFactory } from '@agentclientprotocol/sdk/experimental/server';
export { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';

export const PROTOCOL_VERSION = 1;
export const DEFAULT_CLIENT_INFO = { name: 'talaria', title: 'Talaria', version: '0.1.0' } as const;

export interface ConnectAgentOptions {
  /** Exactly one of transport / process / streams. */
  transport?: Transport;
  process?: AgentProcess;
  /** A raw byte stream pair (in-memory agents, sockets): a transport is made over it. */
  streams?: { input: Readable; output: Writable };
  handlers?: ClientHandlers;
  /**
   * Every `session/update` notification, synchronously, in arrival order. `params` is NOT
   * validated (it is whatever the agent sent); method syntax so callers may narrow it.
   */
  onSessionUpdate(params: unknown, raw: RawMessage): void;
  onFrame?: (frame: Frame) => void;
  onProtocolError?: (event: ProtocolErrorEvent) => void;
  /** After the frames of one read were delivered (see TransportHooks.onReadEnd). */
  onReadEnd?: () => void;
  /** Notifications other than `session/update` (e.g. `_model_state_update`). */
  onNotification?: (method: string, params: unknown) => void;
  /**
   * Agent→client requests no handler takes (qwen's `craft/drainMidTurnQueue`, elicitation…), with
   * their params as sent; without it they are answered -32601 (Method not found).
   */
  onOtherRequest?: (
    method: string,
    params: unknown,
    ctx: { requestId: JsonRpcId; signal: AbortSignal },
  ) => Promise<unknown>;
  logger?: Logger;
  clientInfo?: { name: string; version: string; title?: string };
  clientCapabilityOverrides?: ClientCapabilityOverrides;
  /** Only when the transport is created here (process / streams). */
  maxLineBytes?: number;
  /** Only when the transport is created here: while held, the agent's output is not read. */
  gate?: FlowGate;
  /** After stdout EOF, how long to wait for the child's exit before calling it 'eof'. Default 500. */
  exitGraceMs?: number;
  /** Grace between the steps of terminating the child. Default 2000. */
  terminateGraceMs?: number;
}

export interface CloseInfo {
  cause: CloseCause;
  /** The typed error every pending request was rejected with. */
  error: ConnectionClosedError;
  exitCode?: number | null;
  signal?: string | null;
  stderrTail?: string;
  /** The underlying stream failure, for 'stream_error'. */
  streamError?: Error;
}

type CloseFacts = Omit<CloseInfo, 'error'>;

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface AgentConnection {
  /** Must be called first and awaited. Idempotent. */
  initialize(options?: RequestOptions): Promise<AgentCapabilitiesView>;
  readonly initialized: boolean;
  /** The agent's capabilities (throws `not_initialized` before initialize resolved). */
  readonly capabilities: AgentCapabilitiesView;
  readonly initializeResponse: Record<string, unknown> | undefined;
  /** The result exactly as the agent sent it (see report: SDK maps `null` to `{}` for a few methods). */
  request<T = unknown>(method: string, params?: unknown, options?: RequestOptions): Promise<T>;
  notify(method: string, params?: unknown): Promise<void>;
  readonly closed: Promise<CloseInfo>;
  /** Aborts (reason: the ConnectionClosedError) when the connection closes. */
  readonly signal: AbortSignal;
  readonly isClosed: boolean;
  /** Idempotent. With a process: terminate it; resolves once it exited. */
  close(): Promise<void>;
  readonly stats: TransportStats;
  readonly process: AgentProcess | undefined;
}

export function connectAgent(options: ConnectAgentOptions): AgentConnection {
  const logger = options.logger ?? silentLogger;
  const proc = options.process;
  if ([options.transport, proc, options.streams].filter(Boolean).length !== 1) {
    throw new TalariaError('invalid_argument', 'connectAgent needs exactly one of transport, process or streams');
  }
  const handlers = options.handlers ?? {};
  const onSessionUpdate = options.onSessionUpdate;
  const onNotification = options.onNotification;
  const exitGraceMs = options.exitGraceMs ?? 500;
  const terminateGraceMs = options.terminateGraceMs ?? 2000;

  // Ids of requests we sent and that have not been answered; anything else is dropped here.
  const outstanding = new Set<unknown>();
  // Raw params of agent→client requests we handle, by id, until the handler reads them.
  const rawParamsById = new Map<JsonRpcId, unknown>();
  const handled = new Map<string, ClientHandler<unknown, unknown>>();
  for (const method of Object.keys(CLIENT_HANDLER_METHODS)) {
    const h = handlerFor(handlers, method);
    if (h) handled.set(method, h);
  }

  function divert(msg: RawMessage): boolean {
    const method = msg.method;
    if (method === undefined) {
      if (outstanding.delete(msg.id)) return false;
      logger.warn('dropped a response to an unknown request', { id: msg.id });
      return true;
    }
    if (method === 'session/update' && msg.id === undefined) {
      try {
        onSessionUpdate(msg.params, msg);
      } catch (e) {
        logger.error('onSessionUpdate threw', { error: errMessage(e) });
      }
      return true;
    }
    if (msg.id !== undefined && handled.has(method)) rawParamsById.set(msg.id, msg.params);
    return false;
  }

  let transport: Transport;
  if (options.transport) {
    transport = options.transport;
    transport.setHooks({
      divert,
      ...(options.onFrame ? { onFrame: options.onFrame } : {}),
      ...(options.onProtocolError ? { onProtocolError: options.onProtocolError } : {}),
      ...(options.onReadEnd ? { onReadEnd: options.onReadEnd } : {}),
    });
  } else {
    transport = createTransport({
      input: proc ? proc.stdout : options.streams!.input,
      output: proc ? proc.stdin : options.streams!.output,
      maxLineBytes: options.maxLineBytes,
      ...(options.gate ? { gate: options.gate } : {}),
      onFrame: options.onFrame,
      onProtocolError: options.onProtocolError,
      onReadEnd: options.onReadEnd,
      divert,
      logger,
    });
  }

  // The SDK writes through here so we see which ids are ours.
  const writable = new WritableStream<RawMessage>({
    write(msg) {
      if (msg.method !== undefined) {
        if (msg.id !== undefined) outstanding.add(msg.id);
      } else if (msg.id !== undefined && msg.id !== null) {
        rawParamsById.delete(msg.id);
      }
      return transport.send(msg);
    },
  });

  const app = acp.client({ name: options.clientInfo?.name ?? DEFAULT_CLIENT_INFO.name });
  for (const [method, handler] of handled) {
    // Typed per method by the SDK; the generic wrapper needs one loose cast.
    (app.onRequest as (m: string, h: (ctx: SdkRequestContext) => Promise<unknown>) => unknown)(
      method,
      wrapHandler(method, handler),
    );
  }
  const other = options.onOtherRequest;
  if (other) {
    (app.onRequest as (m: string, h: (ctx: SdkRequestContext & { method: string }) => Promise<unknown>) => unknown)(
      '*',
      (ctx) =>
        wrapHandler(ctx.method, (params, hc) =>
          other(hc.method, params, { requestId: hc.requestId, signal: hc.signal }),
        )(ctx),
    );
  }
  app.onNotification('*', (ctx) => {
    if (!onNotification) return;
    try {
      onNotification(ctx.method, ctx.params);
    } catch (e) {
      logger.error('onNotification threw', { method: ctx.method, error: errMessage(e) });
    }
  });

  function wrapHandler(method: string, handler: ClientHandler<unknown, unknown>) {
    return async (ctx: SdkRequestContext): Promise<unknown> => {
      const id = ctx.requestId;
      let rawParams: unknown = ctx.params;
      if (rawParamsById.has(id)) {
        rawParams = rawParamsById.get(id);
        rawParamsById.delete(id);
      }
      try {
        return await handler(ctx.params, { method, requestId: id, signal: ctx.signal, rawParams });
      } catch (e) {
        if (e instanceof RequestError) throw e;
        if (ctx.signal.aborted) throw acp.RequestError.requestCancelled();
        logger.error('client handler failed', { method, error: errMessage(e) });
        throw acp.RequestError.internalError({ details: errMessage(e) });
      }
    };
  }

  // RawMessage is looser than the SDK's AnyMessage; the transport already checked the shape.
  const sdk = app.connect({ readable: transport.stream.readable, writable } as unknown as acp.Stream);

  // ---- close handling -------------------------------------------------------------------
  const abort = new AbortController();
  let closeInfo: CloseFacts | undefined;
  let closedError: ConnectionClosedError | undefined;
  let resolveClosed!: (info: CloseInfo) => void;
  const closed = new Promise<CloseInfo>((r) => (resolveClosed = r));
  const pending = new Set<(e: Error) => void>();

  function finalize(info: CloseFacts): void {
    if (closeInfo) return;
    closeInfo = info;
    const error = toClosedError(info);
    closedError = error;
    abort.abort(error);
    for (const reject of [...pending]) reject(error);
    pending.clear();
    outstanding.clear();
    rawParamsById.clear();
    transport.close();
    sdk.close(error);
    logger.debug('agent connection closed', { cause: info.cause, exitCode: info.exitCode, signal: info.signal });
    resolveClosed({ ...info, error });
    // A child whose stdout is gone is no use to anyone: do not leak it.
    if (proc && info.cause !== 'closed' && !proc.hasExited)
      background(proc.terminate({ graceMs: terminateGraceMs }), logger, 'terminating the agent');
  }

  function exitInfo(ex: { code: number | null; signal: string | null }): CloseFacts {
    return { cause: 'exit', exitCode: ex.code, signal: ex.signal, stderrTail: proc?.stderrTail(2000) ?? '' };
  }

  const onTransportClosed = async (t: TransportCloseInfo): Promise<void> => {
    if (closeInfo) return; // we closed it
    if (proc) {
      // stdout usually ends because the child died; let the exit event win if it comes soon.
      if (!proc.hasExited) await Promise.race([proc.exited, delay(exitGraceMs)]);
      if (proc.hasExited) return finalize(exitInfo(await proc.exited));
    }
    finalize(t.error ? { cause: t.cause, streamError: t.error } : { cause: t.cause });
  };
  background(transport.closed.then(onTransportClosed), logger, 'closing the connection after its transport');
  if (proc)
    background(
      proc.exited.then((ex) => finalize(exitInfo(ex))),
      logger,
      'closing the connection after the agent exited',
    );
  const onSdkClosed = (): void => {
    // The SDK closed on its own (not because the transport ended): treat as a stream failure.
    if (!closeInfo && !transport.isClosed) {
      const reason = sdk.signal.reason;
      finalize({ cause: 'stream_error', streamError: reason instanceof Error ? reason : new Error(String(reason)) });
    }
  };
  background(sdk.closed.then(onSdkClosed), logger, 'closing the connection after the SDK');

  // ---- requests -------------------------------------------------------------------------
  let initialized = false;
  let initPromise: Promise<AgentCapabilitiesView> | undefined;
  let initResponse: Record<string, unknown> | undefined;
  let caps: AgentCapabilitiesView | undefined;

  function send<T>(method: string, params: unknown, { signal, timeoutMs }: RequestOptions = {}): Promise<T> {
    if (closedError) return Promise.reject(closedError);
    if (signal?.aborted)
      return Promise.reject(new TalariaError('aborted', `${method} aborted before it was sent`, { method }));
    return new Promise<T>((resolve, reject) => {
      const cancel = new AbortController();
      let why: 'aborted' | 'timeout' | undefined;
      const onAbort = (): void => {
        why ??= 'aborted';
        cancel.abort();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer =
        timeoutMs !== undefined
          ? setTimeout(() => {
              why ??= 'timeout';
              cancel.abort();
            }, timeoutMs)
          : undefined;
      const fail = (e: Error): void => {
        cleanup();
        reject(e);
      };
      pending.add(fail);
      function cleanup(): void {
        pending.delete(fail);
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
      // With stopWaitingOnCancel the SDK sends `$/cancel_request` and rejects at once.
      sdk.agent.request<T>(method, params, { cancellationSignal: cancel.signal, stopWaitingOnCancel: true }).then(
        (result) => {
          if (!pending.has(fail)) return;
          cleanup();
          resolve(result);
        },
        (e: unknown) => {
          if (!pending.has(fail)) return; // already rejected (closed)
          if (why === 'timeout')
            return fail(
              new TalariaError('timeout', `${method} timed out after ${timeoutMs} ms`, { method, timeoutMs }),
            );
          if (why === 'aborted') return fail(new TalariaError('aborted', `${method} aborted`, { method }));
          if (e instanceof RequestError) return fail(withMethod(e, method));
          if (closedError) return fail(closedError);
          // The SDK only rejects with a plain error when its connection closed: the close
          // handling above will reject this request with the typed cause. Make sure it runs.
          if (!transport.isClosed)
            finalize({ cause: 'stream_error', streamError: e instanceof Error ? e : new Error(String(e)) });
        },
      );
    });
  }

  function notInitialized(method: string): TalariaError {
    return new TalariaError('not_initialized', `${method} sent before initialize completed`, { method });
  }

  return {
    initialize(opts?: RequestOptions): Promise<AgentCapabilitiesView> {
      if (initPromise) return initPromise;
      const params = {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: buildClientCapabilities(handlers, options.clientCapabilityOverrides),
        clientInfo: options.clientInfo ?? { ...DEFAULT_CLIENT_INFO },
      };
      const p = send<unknown>('initialize', params, opts).then(
        (res) => {
          initResponse = typeof res === 'object' && res !== null ? (res as Record<string, unknown>) : {};
          caps = capabilitiesView(initResponse);
          if (caps.protocolVersion !== PROTOCOL_VERSION) {
            logger.warn('agent answered initialize with another protocol version', {
              protocolVersion: caps.protocolVersion,
            });
          }
          initialized = true;
          return caps;
        },
        (e: unknown) => {
          initPromise = undefined; // may be retried
          throw e;
        },
      );
      initPromise = p;
      return p;
    },
    get initialized() {
      return initialized;
    },
    get capabilities(): AgentCapabilitiesView {
      if (!caps) throw notInitialized('capabilities');
      return caps;
    },
    get initializeResponse() {
      return initResponse;
    },
    request<T = unknown>(method: string, params?: unknown, opts?: RequestOptions): Promise<T> {
      if (closedError) return Promise.reject(closedError);
      if (!initialized) return Promise.reject(notInitialized(method));
      return send<T>(method, params, opts);
    },
    async notify(method: string, params?: unknown): Promise<void> {
      if (closedError) throw closedError;
      if (!initialized) throw notInitialized(method);
      try {
        await sdk.agent.notify(method, params);
      } catch (e) {
        if (!closedError && transport.isClosed) await closed;
        throw closedError ?? new TalariaError('agent_error', `${method}: ${errMessage(e)}`, { method }, { cause: e });
      }
    },
    closed,
    signal: abort.signal,
    get isClosed() {
      return closeInfo !== undefined;
    },
    close: (() => {
      let closing: Promise<void> | undefined;
      return () => {
        closing ??= (async () => {
          finalize({ cause: 'closed' });
          if (proc) await proc.terminate({ graceMs: terminateGraceMs });
        })();
        return closing;
      };
    })(),
    stats: transport.stats,
    process: proc,
  };
}

interface SdkRequestContext {
  params: unknown;
  requestId: JsonRpcId;
  signal: AbortSignal;
}

function toClosedError(info: CloseFacts): ConnectionClosedError {
  switch (info.cause) {
    case 'exit': {
      const how = info.signal ? `was killed by ${info.signal}` : `exited with code ${info.exitCode}`;
      const tail = (info.stderrTail ?? '').trim();
      const shown = tail.length > 800 ? '…' + tail.slice(-800) : tail;
      return new ConnectionClosedError('exit', `agent ${how}${shown ? `; stderr: ${shown}` : ''}`, {
        exitCode: info.exitCode ?? null,
        signal: info.signal ?? null,
        stderrTail: info.stderrTail ?? '',
      });
    }
    case 'eof':
      return new ConnectionClosedError('eof', 'agent closed its stdout');
    case 'stream_error': {
      const msg = info.streamError?.message ?? 'unknown error';
      return new ConnectionClosedError(
        'stream_error',
        `agent stream failed: ${msg}`,
        { error: msg },
        info.streamError ? { cause: info.streamError } : undefined,
      );
    }
    case 'closed':
      return new ConnectionClosedError('closed', 'connection closed by the client');
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function errMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
