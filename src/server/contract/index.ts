/**
 * The server's contract, defined once with zod: HTTP routes, WebSocket messages, errors.
 * Browser-safe (zod and the session event registry only): the server, the typed client and
 * the web UI all import it.
 */
export * from './errors.js';
export * from './models.js';
export * from './http.js';
export * from './ws.js';
export * from './auth.js';
export * from './registry.js';
export * from './hermes.js';
export * from './wire.js';
