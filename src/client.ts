/**
 * talaria-acp/client — one ACP agent without a store or a host: spawn it, open sessions,
 * prompt, stream thread events, answer permissions; plus the pure thread reducer and the
 * permission policy and broker a client builds on, and the bundled demo agent's command.
 */
export { AcpClient } from './session/client.js';
export type { ClientOptions, NewSessionOptions, SessionListing } from './session/client.js';
export { Session, toBlocks } from './session/session.js';
export type { PromptInput, SessionPort } from './session/session.js';
export { Turn } from './session/turn.js';
export type { TurnResult, TurnError } from './session/turn.js';
export type { QueuedPrompt } from './session/prompt-queue.js';
export type { SteerResult, SteerHow } from './session/steer.js';
export { replayWireLog, replayWireLogText } from './session/replay.js';
export { EVENTS, EVENT_NAMES, checkEvent } from './session/events.js';
export type { SessionEvent, EventName, EventOf } from './session/events.js';
export type { SessionHooks } from './session/hooks.js';
export { normalizeCatalog, planSwitch } from './session/catalog.js';
export type { Catalog, CatalogOption, CatalogSelector } from './session/catalog.js';
export { UsageTracker } from './session/usage.js';
export { createThread, reduce, toMarkdown } from './thread/index.js';
export type {
  Thread,
  Entry,
  ToolCallEntry,
  MessageEntry,
  NoticeEntry,
  UnknownEntry,
  ThreadChange,
} from './thread/types.js';
export { PermissionBroker } from './permission/broker.js';
export { evaluate as evaluatePermission } from './permission/policy.js';
export type { PermissionMode, PermissionRule, PermissionAnswer } from './permission/types.js';
// The errors a client catches, without importing the root (which loads the harness and SQLite).
export { TalariaError, ConnectionClosedError, isTalariaError } from './protocol/errors.js';
export { RequestError, WireError } from './protocol/wire-error.js';
export { demoAgentCommand } from './demo/command.js';
