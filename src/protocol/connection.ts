/**
 * The SDK adapter — the only file in src/ that imports the SDK's runtime — and connectAgent,
 * which assembles a connection from its parts: the transport, the MessageRouter (its divert),
 * the SDK client wired here, PendingRequests, the CloseLatch, and the AgentConnection itself.
 *
 * The SDK does typed requests, agent→client request dispatch (-32601 for unknown methods) and
 * cancellation. We keep for ourselves: `session/update` (diverted at the transport, raw, in
 * arrival order, never zod-parsed), responses to ids we never sent (the SDK would print them to stderr),
 * and the error model — callers only ever see RequestError, TalariaError or ConnectionClosedError,
 * never the SDK's plain `Error("ACP connection closed")`.
 */
import * as acp from '@agentclientprotocol/sdk';
import { CLIENT_HANDLER_METHODS, handlerFor, type ClientHandler, type ClientHandlers } from './capabilities.js';
import type { ClientCapabilityOverrides } from './capabilities.js';
import { errMessage, TalariaError } from './errors.js';
import { RequestError } from './wire-error.js';
import type { AgentProcess } from './spawn.js';
import { background } from '../os/background.js';
import type { FlowGate } from './flow-gate.js';
import { AgentConnectionImpl, DEFAULT_CLIENT_INFO, type AgentConnection, type SdkPeer } from './agent-connection.js';
import { CloseLatch, closeOnTransportOrExit } from './connection-close.js';
import { MessageRouter } from './message-router.js';
import { PendingRequests } from './pending-requests.js';
import { createTransport, type Transport } from './transport.js';
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
export { PROTOCOL_VERSION, DEFAULT_CLIENT_INFO } from './agent-connection.js';
export type { AgentConnection, RequestOptions } from './agent-connection.js';
export type { CloseInfo } from './connection-close.js';

// ACP over WebSocket, the SDK's experimental transports: the server side for `/acp` on
// `talaria serve`, the client stream for `talaria acp --attach` (this file is the SDK's one door).
export { AcpServer, type AgentFactory } from '@agentclientprotocol/sdk/experimental/server';
export { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';

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

export function connectAgent(options: ConnectAgentOptions): AgentConnection {
  const logger = options.logger ?? silentLogger;
  const proc = options.process;
  if ([options.transport, proc, options.streams].filter(Boolean).length !== 1) {
    throw new TalariaError('invalid_argument', 'connectAgent needs exactly one of transport, process or streams');
  }
  const handlers = options.handlers ?? {};
  const terminateGraceMs = options.terminateGraceMs ?? 2000;
  const handled = new Map<string, ClientHandler<unknown, unknown>>();
  for (const method of Object.keys(CLIENT_HANDLER_METHODS)) {
    const h = handlerFor(handlers, method);
    if (h) handled.set(method, h);
  }
  const router = new MessageRouter(new Set(handled.keys()), options.onSessionUpdate, logger);
  const transport = attachTransport(options, router.divert, logger);
  const sdk = connectSdk(transport, router, handled, options, logger);

  const latch = new CloseLatch((error, facts) => {
    pending.rejectAll(error);
    router.clear();
    transport.close();
    sdk.close(error);
    logger.debug('agent connection closed', { cause: facts.cause, exitCode: facts.exitCode, signal: facts.signal });
    // A child whose stdout is gone is no use to anyone: do not leak it.
    if (proc && facts.cause !== 'closed' && !proc.hasExited)
      background(proc.terminate({ graceMs: terminateGraceMs }), logger, 'terminating the agent');
  });
  // The SDK only rejects with a plain error when its connection closed: close with that cause,
  // unless the transport's own close handling already does it with a better one.
  const pending = new PendingRequests((e) => {
    if (!transport.isClosed) latch.close({ cause: 'stream_error', streamError: toError(e) });
  });
  closeOnTransportOrExit(latch, transport, proc, options.exitGraceMs ?? 500, logger);
  const onSdkClosed = (): void => {
    // The SDK closed on its own (not because the transport ended): treat as a stream failure.
    if (!latch.isClosed && !transport.isClosed)
      latch.close({ cause: 'stream_error', streamError: toError(sdk.signal.reason) });
  };
  background(sdk.closed.then(onSdkClosed), logger, 'closing the connection after the SDK');

  const peer: SdkPeer = {
    request: <T>(method: string, params: unknown, cancel: AbortSignal) =>
      sdk.agent.request<T>(method, params, { cancellationSignal: cancel, stopWaitingOnCancel: true }),
    notify: (method, params) => sdk.agent.notify(method, params),
  };
  return new AgentConnectionImpl({
    peer,
    latch,
    pending,
    transport,
    process: proc,
    handlers,
    clientInfo: options.clientInfo,
    clientCapabilityOverrides: options.clientCapabilityOverrides,
    terminateGraceMs,
    logger,
  });
}

/** The given transport with our hooks, or a new one over the process's pipes or the streams. */
function attachTransport(
  options: ConnectAgentOptions,
  divert: (msg: RawMessage) => boolean,
  logger: Logger,
): Transport {
  if (options.transport) {
    options.transport.setHooks({
      divert,
      ...(options.onFrame ? { onFrame: options.onFrame } : {}),
      ...(options.onProtocolError ? { onProtocolError: options.onProtocolError } : {}),
      ...(options.onReadEnd ? { onReadEnd: options.onReadEnd } : {}),
    });
    return options.transport;
  }
  const proc = options.process;
  return createTransport({
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

/** The SDK client over the transport: our handlers, the catch-all ones, and its writes seen by the router. */
function connectSdk(
  transport: Transport,
  router: MessageRouter,
  handled: Map<string, ClientHandler<unknown, unknown>>,
  options: ConnectAgentOptions,
  logger: Logger,
) {
  // The SDK writes through here so the router sees which ids are ours.
  const writable = new WritableStream<RawMessage>({
    write(msg) {
      router.outgoing(msg);
      return transport.send(msg);
    },
  });

  const wrapHandler =
    (method: string, handler: ClientHandler<unknown, unknown>) =>
    async (ctx: SdkRequestContext): Promise<unknown> => {
      const id = ctx.requestId;
      const rawParams = router.takeRawParams(id, ctx.params);
      try {
        return await handler(ctx.params, { method, requestId: id, signal: ctx.signal, rawParams });
      } catch (e) {
        if (e instanceof RequestError) throw e;
        if (ctx.signal.aborted) throw acp.RequestError.requestCancelled();
        logger.error('client handler failed', { method, error: errMessage(e) });
        throw acp.RequestError.internalError({ details: errMessage(e) });
      }
    };

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
  const onNotification = options.onNotification;
  app.onNotification('*', (ctx) => {
    if (!onNotification) return;
    try {
      onNotification(ctx.method, ctx.params);
    } catch (e) {
      logger.error('onNotification threw', { method: ctx.method, error: errMessage(e) });
    }
  });
  // RawMessage is looser than the SDK's AnyMessage; the transport already checked the shape.
  return app.connect({ readable: transport.stream.readable, writable } as unknown as acp.Stream);
}

interface SdkRequestContext {
  params: unknown;
  requestId: JsonRpcId;
  signal: AbortSignal;
}

function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
