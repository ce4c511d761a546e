/**
 * What an AcpClient is opened with, what it says about its agent and its sessions: the options,
 * a session listing, the initialize answer (ConnectionInfo), and the helpers that read them.
 */
import type { Logger, Frame, ProtocolErrorEvent } from '../protocol/types.js';
import type { ClientCapabilityOverrides, ClientHandlers } from '../protocol/connection.js';
import type { FlowGate } from '../protocol/flow-gate.js';
import type { PermissionDecisionEvent, PermissionMode, PermissionRule } from '../permission/types.js';
import type { SessionHooks } from './hooks.js';
import type { EarlyLimits } from './early-frames.js';
import type { Session } from './session.js';
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

/** What the client hands connectAgent to hear from the connection. */
export interface ConnectHooks {
  handlers: ClientHandlers;
  onSessionUpdate: (params: unknown) => void;
  onFrame: (frame: Frame) => void;
  onProtocolError: (e: ProtocolErrorEvent) => void;
  onReadEnd: () => void;
  onOtherRequest: (method: string, params: unknown, ctx: { signal: AbortSignal }) => Promise<unknown>;
}

/** The options connectAgent takes from the client's. */
export function connectExtras(opts: ClientOptions) {
  return {
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.clientInfo ? { clientInfo: opts.clientInfo } : {}),
    ...(opts.clientCapabilityOverrides ? { clientCapabilityOverrides: opts.clientCapabilityOverrides } : {}),
    ...(opts.gate ? { gate: opts.gate } : {}),
  };
}

/** The initialize answer as ConnectionInfo. */
export function connectionInfo(result: Record<string, unknown> | undefined): ConnectionInfo {
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
