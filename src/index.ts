/** Talaria library entry: exports by name. */
export { AcpClient } from './session/client.js';
export type { ClientOptions, NewSessionOptions, SessionListing } from './session/client.js';
export { Session, toBlocks } from './session/session.js';
export type { PromptInput, SessionPort } from './session/session.js';
export { Turn } from './session/turn.js';
export { replayWireLog, replayWireLogText } from './session/replay.js';
export type { TurnResult, TurnError } from './session/turn.js';
export { EVENTS, EVENT_NAMES, checkEvent } from './session/events.js';
export type { SessionEvent, EventName, EventOf } from './session/events.js';
export type { SessionHooks } from './session/hooks.js';
export { normalizeCatalog, planSwitch } from './session/catalog.js';
export type { Catalog, CatalogOption, CatalogSelector } from './session/catalog.js';
export { hermesModelRows } from './session/hermes-catalog.js';
export { UsageTracker } from './session/usage.js';
export { createThread, reduce, toMarkdown } from './thread/index.js';
export type { Thread, Entry, ToolCallEntry, MessageEntry, NoticeEntry, UnknownEntry, ThreadChange } from './thread/types.js';
export { PermissionBroker } from './permission/broker.js';
export { evaluate as evaluatePermission } from './permission/policy.js';
export type { PermissionMode, PermissionRule, PermissionAnswer } from './permission/types.js';
export { TalariaError, WireError, ConnectionClosedError, RPC } from './protocol/errors.js';
export { buildChildEnv } from './protocol/env.js';
export { parseWireLog, formatWireLine } from './protocol/wire-log.js';
export type { Frame, WireLogLine, Logger } from './protocol/types.js';
export { demoAgentCommand } from './demo/command.js';
export { AgentHost, HOST_EVENTS, checkHostEvent } from './host/index.js';
export {
  createRegistry,
  loadRegistry,
  resolveProvider,
  hermesProvider,
  demoProvider,
  customProvider,
  probeProvider,
  findHermes,
  hermesReadiness,
  listProfiles,
  installSkill,
  lintHermesConfig,
} from './providers/index.js';
export type { Provider, ProviderRegistry, Readiness, ReadinessGap } from './providers/index.js';
export { openStore, createRecorder } from './store/index.js';
export type { Store } from './store/index.js';
export { createHarness } from './harness/index.js';
export type { Harness, HarnessOptions, HarnessSession, Workspace, SessionSummary, SessionOrigin } from './harness/index.js';
export { connectServer, ServerError, LiveSocket } from './server/client/index.js';
export type { ServerClient, ConnectOptions, SubscribeHandlers, Subscription, WebSocketCtor, WebSocketLike, LiveSocketOptions } from './server/client/index.js';
export * as contract from './server/contract/index.js';
export type { StreamEvent, StreamEventName, SessionSnapshot, SessionSummaryInfo, ServerMessage, ClientMessage, RouteName, RouteInput, RouteOutput, ApiError } from './server/contract/index.js';
