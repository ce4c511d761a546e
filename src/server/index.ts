/** `talaria serve`: the server face (HTTP API, WebSocket, static web UI) over the harness. */
export { startServer, type ServerOptions, type RunningServer, type UpgradeHandler } from './server.js';
export { addToken, revokeToken, readTokens, tokensFile, type TokenRecord } from './tokens.js';
export { isLoopback } from './guard.js';
export { RecordingRelay } from './recording.js';
export { liveStatusOf, type ServerFleet, type ServerFleetHost, type LiveStatus } from './fleet.js';
