/**
 * The zod-free part of the server's contract: where things live, how a token travels, and each
 * HTTP route's method, path and role. The typed client needs only this at run time, so a client
 * that wants to start fast (`talaria run` on a warm server, issue 16) never loads zod; the
 * schemas in http.ts and auth.ts spread these entries, so each route is defined once.
 */

/** Where things live on the one port. */
export const PATHS = { api: '/api', ws: '/ws', acp: '/acp', captp: '/captp', fleetPair: '/fleet/pair' } as const;
/**
 * A fleet host's pair reference, presented on `/captp` in place of a token (docs/fleet.md §3): the
 * reference the owner minted for it is the authority for that connection, nothing else is.
 */
export const PEER_REF_HEADER = 'x-talaria-peer-ref';
/** Header carrying the token (or the page's HttpOnly cookie, `talaria_token_<port>`, traded for it). */
export const TOKEN_HEADER = 'authorization';
/** The prefix of the page's cookie name; the server appends its port (guard.ts cookieName). */
export const TOKEN_COOKIE = 'talaria_token';
/** WebSocket subprotocol prefix a browser may use to pass the token: `talaria.token.<token>`. */
export const TOKEN_PROTOCOL_PREFIX = 'talaria.token.';

export interface RouteLocation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Hono-style `:params`. */
  path: string;
  /** `none` needs no token (health only). */
  role: 'none' | 'observer' | 'controller';
  /** The answer is text (an export), not JSON. */
  text?: true;
}

export const ROUTE_TABLE = {
  health: { method: 'GET', path: '/api/health', role: 'none' },
  me: { method: 'GET', path: '/api/me', role: 'observer' },
  signIn: { method: 'POST', path: '/api/auth/cookie', role: 'observer' },
  signOut: { method: 'DELETE', path: '/api/auth/cookie', role: 'none' },
  readiness: { method: 'GET', path: '/api/readiness', role: 'observer' },
  providers: { method: 'GET', path: '/api/providers', role: 'observer' },
  workspaces: { method: 'GET', path: '/api/workspaces', role: 'observer' },
  openWorkspace: { method: 'POST', path: '/api/workspaces', role: 'controller' },
  bindProvider: { method: 'PUT', path: '/api/workspaces/:id/provider', role: 'controller' },
  workspaceModels: { method: 'GET', path: '/api/workspaces/:id/models', role: 'observer' },
  hermesProfiles: { method: 'GET', path: '/api/hermes/profiles', role: 'observer' },
  setWorkspaceProfile: { method: 'PUT', path: '/api/workspaces/:id/profile', role: 'controller' },
  listSessions: { method: 'GET', path: '/api/sessions', role: 'observer' },
  createSession: { method: 'POST', path: '/api/workspaces/:id/sessions', role: 'controller' },
  run: { method: 'POST', path: '/api/run', role: 'controller' },
  runStream: { method: 'POST', path: '/api/run/stream', role: 'controller', text: true },
  snapshot: { method: 'GET', path: '/api/sessions/:id', role: 'observer' },
  openSession: { method: 'POST', path: '/api/sessions/:id/open', role: 'controller' },
  prompt: { method: 'POST', path: '/api/sessions/:id/prompt', role: 'controller' },
  queue: { method: 'GET', path: '/api/sessions/:id/queue', role: 'observer' },
  editQueued: { method: 'PATCH', path: '/api/sessions/:id/queue/:item', role: 'controller' },
  removeQueued: { method: 'DELETE', path: '/api/sessions/:id/queue/:item', role: 'controller' },
  cancel: { method: 'POST', path: '/api/sessions/:id/cancel', role: 'controller' },
  setModel: { method: 'PUT', path: '/api/sessions/:id/model', role: 'controller' },
  setMode: { method: 'PUT', path: '/api/sessions/:id/mode', role: 'controller' },
  permissions: { method: 'GET', path: '/api/sessions/:id/permissions', role: 'observer' },
  answerPermission: { method: 'POST', path: '/api/sessions/:id/permissions/:requestKey', role: 'controller' },
  archive: { method: 'POST', path: '/api/sessions/:id/archive', role: 'controller' },
  fork: { method: 'POST', path: '/api/sessions/:id/fork', role: 'controller' },
  branches: { method: 'GET', path: '/api/sessions/:id/branches', role: 'observer' },
  createBranch: { method: 'POST', path: '/api/sessions/:id/branches', role: 'controller' },
  steer: { method: 'POST', path: '/api/sessions/:id/steer', role: 'controller' },
  exportSession: { method: 'GET', path: '/api/sessions/:id/export', role: 'observer', text: true },
  importSession: { method: 'POST', path: '/api/sessions/import', role: 'controller' },
  wireLog: { method: 'GET', path: '/api/sessions/:id/wire', role: 'observer' },
  rules: { method: 'GET', path: '/api/rules', role: 'observer' },
  addRule: { method: 'POST', path: '/api/rules', role: 'controller' },
  updateRule: { method: 'PUT', path: '/api/rules/:id', role: 'controller' },
  deleteRule: { method: 'DELETE', path: '/api/rules/:id', role: 'controller' },
  audit: { method: 'GET', path: '/api/audit', role: 'observer' },
  usage: { method: 'GET', path: '/api/usage', role: 'observer' },
  hermesSessions: { method: 'GET', path: '/api/hermes/sessions', role: 'observer' },
  hermesSession: { method: 'GET', path: '/api/hermes/sessions/:profile/:id', role: 'observer' },
  continueHermesSession: { method: 'POST', path: '/api/hermes/sessions/:profile/:id/continue', role: 'controller' },
  agentReadiness: { method: 'GET', path: '/api/agents/:id/readiness', role: 'observer' },
  agentSignInMethods: { method: 'GET', path: '/api/agents/:id/login', role: 'controller' },
  agentLogin: { method: 'POST', path: '/api/agents/:id/login', role: 'controller' },
  registryIndex: { method: 'GET', path: '/api/registry', role: 'observer' },
  registryAdd: { method: 'POST', path: '/api/registry/agents', role: 'controller' },
  registryUpdate: { method: 'POST', path: '/api/registry/agents/:id/update', role: 'controller' },
  registryRemove: { method: 'DELETE', path: '/api/registry/agents/:id', role: 'controller' },
} as const satisfies Record<string, RouteLocation>;
