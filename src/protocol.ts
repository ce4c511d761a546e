/**
 * talaria-acp/protocol — the wire: typed errors, the raw ACP connection over a child process or
 * streams, the allow-listed child environment, the wire-log line format, frame types.
 */
export { RPC, TalariaError, ConnectionClosedError, isTalariaError } from './protocol/errors.js';
export { RequestError, WireError } from './protocol/wire-error.js';
export type { CloseCause, ProtocolErrorCode } from './protocol/errors.js';
/** The union faces switch on: the protocol's codes and the store's (kept for callers of this entry). */
export type { TalariaErrorCode } from './harness/errors.js';
export { connectAgent, PROTOCOL_VERSION } from './protocol/connection.js';
export type {
  AgentConnection,
  ConnectAgentOptions,
  CloseInfo,
  RequestOptions,
  AgentCapabilitiesView,
  ClientHandlers,
} from './protocol/connection.js';
export { spawnAgent } from './protocol/spawn.js';
export type { AgentProcess, SpawnAgentOptions, ExitInfo } from './protocol/spawn.js';
export { buildChildEnv } from './os/env.js';
export { parseWireLog, formatWireLine } from './protocol/wire-log.js';
export { silentLogger } from './protocol/types.js';
export type {
  JsonRpcId,
  RawMessage,
  Direction,
  Frame,
  WireLogLine,
  ProtocolErrorEvent,
  Logger,
} from './protocol/types.js';
