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

/** Where things live on the one port. */
export const PATHS = { api: '/api', ws: '/ws', acp: '/acp', captp: '/captp' } as const;
/** Header carrying the token (or the `talaria_token` cookie the page sets from the URL fragment). */
export const TOKEN_HEADER = 'authorization';
export const TOKEN_COOKIE = 'talaria_token';
/** WebSocket subprotocol prefix a browser may use to pass the token: `talaria.token.<token>`. */
export const TOKEN_PROTOCOL_PREFIX = 'talaria.token.';
