/** The protocol layer's public surface, by name. */
export { LineDecoder, DEFAULT_MAX_LINE_BYTES } from './ndjson.js';
export type { LineDecoderOptions, OversizeLine } from './ndjson.js';
export { createTransport, checkMessage } from './transport.js';
export { FlowGate } from './flow-gate.js';
export type { Transport, TransportOptions, TransportHooks, TransportCloseInfo, TransportStats } from './transport.js';
export { formatWireLine, parseWireLog } from './wire-log.js';
export type { WireLogError } from './wire-log.js';
export { spawnAgent } from './spawn.js';
export type { AgentProcess, SpawnAgentOptions, SpawnOptions, ExitInfo } from './spawn.js';
export { capabilitiesView, buildClientCapabilities, handlerFor, CLIENT_HANDLER_METHODS } from './capabilities.js';
export type {
  AgentCapabilitiesView,
  AgentInfo,
  SessionFeature,
  ClientHandlers,
  ClientHandler,
  TerminalHandlers,
  HandlerContext,
  ClientCapabilityOverrides,
} from './capabilities.js';
export { connectAgent, PROTOCOL_VERSION, DEFAULT_CLIENT_INFO } from './connection.js';
export type { AgentConnection, ConnectAgentOptions, CloseInfo, RequestOptions } from './connection.js';
export { RPC, TalariaError, ConnectionClosedError, isTalariaError } from './errors.js';
export { RequestError, WireError } from './wire-error.js';
export type { CloseCause, ProtocolErrorCode } from './errors.js';
export { silentLogger } from './types.js';
export type { JsonRpcId, RawMessage, Direction, Frame, WireLogLine, ProtocolErrorEvent, Logger } from './types.js';
export { createWireChecker, formatViolation, warmWireChecker } from './wire-check.js';
export type { WireChecker, Violation, UnknownMethod } from './wire-check.js';
