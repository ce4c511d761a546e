/**
 * The AgentConnection callers hold: initialize (once, retried after a failure), requests and
 * notifications before/after it, close. The SDK is behind `SdkPeer`, so this file does not load it.
 */
import { buildClientCapabilities, capabilitiesView, type AgentCapabilitiesView } from './capabilities.js';
import type { ClientCapabilityOverrides, ClientHandlers } from './capabilities.js';
import { errMessage, TalariaError } from './errors.js';
import type { CloseInfo, CloseLatch } from './connection-close.js';
import type { PendingRequests } from './pending-requests.js';
import type { AgentProcess } from './spawn.js';
import type { Transport, TransportStats } from './transport-types.js';
import type { Logger } from './types.js';

export const PROTOCOL_VERSION = 1;
export const DEFAULT_CLIENT_INFO = { name: 'talaria', title: 'Talaria', version: '0.1.0' } as const;

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

/** The SDK's agent side, as the connection uses it. */
export interface SdkPeer {
  /** `cancel` aborts the request: the SDK sends `$/cancel_request` and rejects at once. */
  request<T>(method: string, params: unknown, cancel: AbortSignal): Promise<T>;
  notify(method: string, params: unknown): Promise<void>;
}

export interface AgentConnectionParts {
  peer: SdkPeer;
  latch: CloseLatch;
  pending: PendingRequests;
  transport: Transport;
  process: AgentProcess | undefined;
  handlers: ClientHandlers;
  clientInfo: { name: string; version: string; title?: string } | undefined;
  clientCapabilityOverrides: ClientCapabilityOverrides | undefined;
  terminateGraceMs: number;
  logger: Logger;
}

// Methods are arrow properties: callers may pass them around unbound (as they could before).
export class AgentConnectionImpl implements AgentConnection {
  readonly stats: TransportStats;
  readonly process: AgentProcess | undefined;
  private readonly p: AgentConnectionParts;
  private isInitialized = false;
  private initPromise: Promise<AgentCapabilitiesView> | undefined;
  private initResponse: Record<string, unknown> | undefined;
  private caps: AgentCapabilitiesView | undefined;
  private closing: Promise<void> | undefined;

  constructor(parts: AgentConnectionParts) {
    this.p = parts;
    this.stats = parts.transport.stats;
    this.process = parts.process;
  }

  get initialized(): boolean {
    return this.isInitialized;
  }

  get capabilities(): AgentCapabilitiesView {
    if (!this.caps) throw notInitialized('capabilities');
    return this.caps;
  }

  get initializeResponse(): Record<string, unknown> | undefined {
    return this.initResponse;
  }

  get closed(): Promise<CloseInfo> {
    return this.p.latch.closed;
  }

  get signal(): AbortSignal {
    return this.p.latch.signal;
  }

  get isClosed(): boolean {
    return this.p.latch.isClosed;
  }

  readonly initialize = (opts?: RequestOptions): Promise<AgentCapabilitiesView> => {
    if (this.initPromise) return this.initPromise;
    const params = {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: buildClientCapabilities(this.p.handlers, this.p.clientCapabilityOverrides),
      clientInfo: this.p.clientInfo ?? { ...DEFAULT_CLIENT_INFO },
    };
    const p = this.send<unknown>('initialize', params, opts).then(
      (res) => {
        this.initResponse = typeof res === 'object' && res !== null ? (res as Record<string, unknown>) : {};
        const caps = capabilitiesView(this.initResponse);
        this.caps = caps;
        if (caps.protocolVersion !== PROTOCOL_VERSION) {
          this.p.logger.warn('agent answered initialize with another protocol version', {
            protocolVersion: caps.protocolVersion,
          });
        }
        this.isInitialized = true;
        return caps;
      },
      (e: unknown) => {
        this.initPromise = undefined; // may be retried
        throw e;
      },
    );
    this.initPromise = p;
    return p;
  };

  readonly request = <T = unknown>(method: string, params?: unknown, opts?: RequestOptions): Promise<T> => {
    const closedError = this.p.latch.error;
    if (closedError) return Promise.reject(closedError);
    if (!this.isInitialized) return Promise.reject(notInitialized(method));
    return this.send<T>(method, params, opts);
  };

  readonly notify = async (method: string, params?: unknown): Promise<void> => {
    const latch = this.p.latch;
    if (latch.error) throw latch.error;
    if (!this.isInitialized) throw notInitialized(method);
    try {
      await this.p.peer.notify(method, params);
    } catch (e) {
      if (!latch.error && this.p.transport.isClosed) await latch.closed;
      throw latch.error ?? new TalariaError('agent_error', `${method}: ${errMessage(e)}`, { method }, { cause: e });
    }
  };

  readonly close = (): Promise<void> => {
    this.closing ??= (async () => {
      this.p.latch.close({ cause: 'closed' });
      if (this.p.process) await this.p.process.terminate({ graceMs: this.p.terminateGraceMs });
    })();
    return this.closing;
  };

  private send<T>(method: string, params: unknown, opts: RequestOptions | undefined): Promise<T> {
    const closedError = this.p.latch.error;
    if (closedError) return Promise.reject(closedError);
    const peer = this.p.peer;
    return this.p.pending.run<T>(method, (cancel) => peer.request<T>(method, params, cancel), opts);
  }
}

function notInitialized(method: string): TalariaError {
  return new TalariaError('not_initialized', `${method} sent before initialize completed`, { method });
}
