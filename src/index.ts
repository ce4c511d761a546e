/**
 * talaria-acp — the library face: the harness (registry + supervised agents + store), the
 * errors every caller may catch, and the public types. Everything else is a subpath export, so
 * importing the root never loads more than the harness needs:
 *
 *   talaria-acp/client     one ACP agent without a store: AcpClient, Session, Turn, events,
 *                          the thread reducer, the permission policy and broker, the demo agent
 *   talaria-acp/protocol   errors, the raw connection, child environment, wire-log format, frames
 *   talaria-acp/providers  agent descriptors, the registry, config resolution, the probe
 *   talaria-acp/hermes     Hermes Agent: binary, readiness, profiles, skills, config lint, models
 *   talaria-acp/host       supervised agent processes per (provider, profile, workspace)
 *   talaria-acp/store      the SQLite store and its recorder
 *
 * The server's contract and typed client (connectServer) are at the root: the web UI imports them.
 */
export { createHarness } from './harness/index.js';
export type {
  Harness,
  HarnessOptions,
  HarnessSession,
  Workspace,
  SessionSummary,
  SessionOrigin,
  ListOptions,
  ListResult,
  NewSessionOptions,
  OpenStoredOptions,
  ExportFormat,
  AgentStatus,
  AgentPick,
} from './harness/index.js';
export { TalariaError, ConnectionClosedError, isTalariaError, RPC } from './protocol/errors.js';
export { RequestError, WireError } from './protocol/wire-error.js';
export type { CloseCause, ProtocolErrorCode } from './protocol/errors.js';
export type { TalariaErrorCode } from './harness/index.js';
// Types a harness user meets in its results and events (no runtime cost).
export type { Session, PromptInput } from './session/session.js';
export type { Turn, TurnResult, TurnError } from './session/turn.js';
export type { QueuedPrompt } from './session/prompt-queue.js';
export type { SessionEvent, EventName, EventOf } from './session/events.js';
export type { Catalog, CatalogOption, CatalogSelector } from './session/catalog.js';
export type {
  Thread,
  Entry,
  ToolCallEntry,
  MessageEntry,
  NoticeEntry,
  UnknownEntry,
  ThreadChange,
} from './thread/types.js';
export type { PermissionMode, PermissionRule, PermissionAnswer } from './permission/types.js';
export type { Provider, ProviderEnv, Readiness, ReadinessGap } from './providers/types.js';
export type { ProviderRegistry } from './providers/registry.js';
export type { Frame, WireLogLine, Logger, ProtocolErrorEvent } from './protocol/types.js';
// The server's typed client and its contract (browser-safe).
export { connectServer, ServerError, LiveSocket, applyEvent } from './server/client/index.js';
export type {
  ServerClient,
  ConnectOptions,
  SubscribeHandlers,
  Subscription,
  WebSocketCtor,
  WebSocketLike,
  LiveSocketOptions,
} from './server/client/index.js';
export * as contract from './server/contract/index.js';
export type {
  StreamEvent,
  StreamEventName,
  SessionSnapshot,
  SessionSummaryInfo,
  ServerMessage,
  ClientMessage,
  RouteName,
  RouteInput,
  RouteOutput,
  ApiError,
} from './server/contract/index.js';
