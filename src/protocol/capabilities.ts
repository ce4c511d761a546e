/**
 * Capability checks. Agent side: a read-only view over the raw InitializeResponse (an omitted
 * capability means unsupported, `{}` means supported). Client side: we advertise fs/terminal
 * only when a handler exists, so an agent never calls a method we would answer -32601.
 */
import type * as acp from '@agentclientprotocol/sdk';
import type { JsonRpcId } from './types.js';
import { asRecord, isRecord, recordOrEmpty } from '../os/record.js';

export type SessionFeature = 'list' | 'fork' | 'resume' | 'close' | 'delete';

export interface AgentInfo {
  name: string;
  version?: string;
  title?: string;
}

export interface AgentCapabilitiesView {
  /** The InitializeResponse exactly as the agent sent it. */
  readonly raw: Record<string, unknown>;
  readonly protocolVersion: number | undefined;
  readonly supportsLoad: boolean;
  supportsSession(feature: SessionFeature): boolean;
  readonly promptImage: boolean;
  readonly promptAudio: boolean;
  readonly promptEmbeddedContext: boolean;
  readonly mcpHttp: boolean;
  readonly mcpSse: boolean;
  readonly authMethods: acp.AuthMethod[];
  readonly agentInfo: AgentInfo | undefined;
}

export function capabilitiesView(initializeResponse: unknown): AgentCapabilitiesView {
  const raw = recordOrEmpty(initializeResponse);
  const caps = recordOrEmpty(raw.agentCapabilities);
  const prompt = recordOrEmpty(caps.promptCapabilities);
  const mcp = recordOrEmpty(caps.mcpCapabilities);
  const session = recordOrEmpty(caps.sessionCapabilities);
  const info = asRecord(raw.agentInfo);
  return {
    raw,
    protocolVersion: typeof raw.protocolVersion === 'number' ? raw.protocolVersion : undefined,
    supportsLoad: caps.loadSession === true,
    supportsSession: (feature) => isRecord(session[feature]),
    promptImage: prompt.image === true,
    promptAudio: prompt.audio === true,
    promptEmbeddedContext: prompt.embeddedContext === true,
    mcpHttp: mcp.http === true,
    mcpSse: mcp.sse === true,
    authMethods: Array.isArray(raw.authMethods) ? (raw.authMethods.filter((m) => isRecord(m)) as acp.AuthMethod[]) : [],
    agentInfo:
      info && typeof info.name === 'string'
        ? {
            name: info.name,
            ...(typeof info.version === 'string' ? { version: info.version } : {}),
            ...(typeof info.title === 'string' ? { title: info.title } : {}),
          }
        : undefined,
  };
}

/** What a handler gets besides the (SDK-validated) params. */
export interface HandlerContext {
  method: string;
  requestId: JsonRpcId;
  /** Aborts when the agent sends `$/cancel_request` for this request or the connection closes. */
  signal: AbortSignal;
  /** The params exactly as the agent sent them (the SDK's parse strips unknown keys). */
  rawParams: unknown;
}

export type ClientHandler<P, R> = (params: P, ctx: HandlerContext) => R | Promise<R>;

/** The five terminal methods; one capability, so they come as one object. */
export interface TerminalHandlers {
  create: ClientHandler<acp.CreateTerminalRequest, acp.CreateTerminalResponse>;
  output: ClientHandler<acp.TerminalOutputRequest, acp.TerminalOutputResponse>;
  waitForExit: ClientHandler<acp.WaitForTerminalExitRequest, acp.WaitForTerminalExitResponse>;
  kill: ClientHandler<acp.KillTerminalRequest, acp.KillTerminalResponse | void>;
  release: ClientHandler<acp.ReleaseTerminalRequest, acp.ReleaseTerminalResponse | void>;
}

/**
 * Agent→client request handlers. Each one is registered (and its capability advertised)
 * only when present. Throw a RequestError to answer with a specific JSON-RPC error.
 */
export interface ClientHandlers {
  requestPermission?: ClientHandler<acp.RequestPermissionRequest, acp.RequestPermissionResponse>;
  readTextFile?: ClientHandler<acp.ReadTextFileRequest, acp.ReadTextFileResponse>;
  writeTextFile?: ClientHandler<acp.WriteTextFileRequest, acp.WriteTextFileResponse | void>;
  terminal?: TerminalHandlers;
}

/** ACP method → how to find its handler (method of `handlers.terminal` or a top-level key). */
export const CLIENT_HANDLER_METHODS = {
  'session/request_permission': ['requestPermission'],
  'fs/read_text_file': ['readTextFile'],
  'fs/write_text_file': ['writeTextFile'],
  'terminal/create': ['terminal', 'create'],
  'terminal/output': ['terminal', 'output'],
  'terminal/wait_for_exit': ['terminal', 'waitForExit'],
  'terminal/kill': ['terminal', 'kill'],
  'terminal/release': ['terminal', 'release'],
} as const;

const TERMINAL_METHODS = ['create', 'output', 'waitForExit', 'kill', 'release'] as const;

/** The handler for an ACP method, bound to its object, or undefined. */
export function handlerFor(handlers: ClientHandlers, method: string): ClientHandler<unknown, unknown> | undefined {
  const path = (CLIENT_HANDLER_METHODS as Record<string, readonly string[]>)[method];
  if (!path) return undefined;
  if (path[0] === 'terminal') {
    const t = handlers.terminal as unknown as Record<string, unknown> | undefined;
    const f = t?.[path[1]!];
    return typeof f === 'function' ? (f.bind(t) as ClientHandler<unknown, unknown>) : undefined;
  }
  const f = (handlers as Record<string, unknown>)[path[0]!];
  return typeof f === 'function' ? (f.bind(handlers) as ClientHandler<unknown, unknown>) : undefined;
}

/** Overrides can only switch capabilities off (e.g. an agent whose fs calls are buggy). */
export interface ClientCapabilityOverrides {
  fs?: { readTextFile?: boolean; writeTextFile?: boolean };
  terminal?: boolean;
  /** ACP terminal auth: set only by a client that can run the agent's sign-in command in a terminal (`talaria login`). */
  auth?: { terminal?: boolean };
  _meta?: Record<string, unknown>;
}

export function buildClientCapabilities(
  handlers: ClientHandlers,
  overrides: ClientCapabilityOverrides = {},
): acp.ClientCapabilities {
  // Terminal is one capability over five methods: advertise it only if all of them work.
  const t = handlers.terminal as unknown as Record<string, unknown> | undefined;
  const terminal = t !== undefined && TERMINAL_METHODS.every((k) => typeof t[k] === 'function');
  const caps: acp.ClientCapabilities = {
    fs: {
      readTextFile: typeof handlers.readTextFile === 'function' && overrides.fs?.readTextFile !== false,
      writeTextFile: typeof handlers.writeTextFile === 'function' && overrides.fs?.writeTextFile !== false,
    },
    terminal: terminal && overrides.terminal !== false,
  };
  if (overrides.auth) caps.auth = { ...overrides.auth };
  if (overrides._meta) caps._meta = overrides._meta;
  return caps;
}
