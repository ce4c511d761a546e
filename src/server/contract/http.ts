import { z } from 'zod';
import { auditRecord, permissionRule, providerInfo, role, storedRule, workspace } from './models.js';
import { id, ok, bool, usageTotal, sessionUsage, type RouteDef } from './http-schemas.js';
import { SESSION_ROUTES } from './http-session-routes.js';
import { HERMES_ROUTES } from './hermes.js';
import { ROUTE_TABLE } from './wire.js';

export { branchBody, newSessionBody, promptBody, sessionUsage, usageTokens, type RouteDef } from './http-schemas.js';

/**
 * The HTTP API, one table: each route's location (method, path, role: wire.ts's ROUTE_TABLE)
 * and the schemas of params, query, body and response. The server mounts it, the typed client
 * calls it, the contract tests walk it.
 */
export const ROUTES = {
  health: {
    ...ROUTE_TABLE.health,
    response: z.object({ ok: z.literal(true), name: z.literal('talaria'), version: z.string(), uptimeMs: z.number() }),
  },
  /** Who this token is. */
  me: {
    ...ROUTE_TABLE.me,
    response: z.object({ role, tokenId: z.string(), label: z.string().optional() }),
  },
  /**
   * The page trades the link's `#token=` (sent as `Authorization: Bearer`) for this server's
   * HttpOnly, SameSite=Strict cookie; a token that is not valid gets 401 and no cookie, so a
   * bad link in one tab leaves every other tab signed in. Answers as `me`.
   */
  signIn: {
    ...ROUTE_TABLE.signIn,
    response: z.object({ role, tokenId: z.string(), label: z.string().optional() }),
  },
  /** Clears the cookie (no token needed: a stale cookie must be removable). */
  signOut: {
    ...ROUTE_TABLE.signOut,
    response: z.object({ ok: z.literal(true) }),
  },
  readiness: {
    ...ROUTE_TABLE.readiness,
    query: z.object({ refresh: bool }),
    response: z.object({ providers: z.array(providerInfo), problems: z.array(z.string()) }),
  },
  providers: {
    ...ROUTE_TABLE.providers,
    response: z.object({ providers: z.array(providerInfo), default: z.string().optional() }),
  },
  workspaces: {
    ...ROUTE_TABLE.workspaces,
    response: z.object({ workspaces: z.array(workspace) }),
  },
  openWorkspace: {
    ...ROUTE_TABLE.openWorkspace,
    body: z.object({ path: z.string().min(1) }),
    response: z.object({ workspace }),
  },
  /** The workspace's default provider (and its default model/mode for that provider); `provider: ""` clears it (the configured default, else the best ready agent). */
  bindProvider: {
    ...ROUTE_TABLE.bindProvider,
    params: id,
    body: z.object({
      provider: z.string(),
      profile: z.string().optional(),
      model: z.string().optional(),
      mode: z.string().optional(),
    }),
    response: z.object({ workspace }),
  },
  /** The model catalog for new sessions of a provider here, without a visible session (cached). */
  workspaceModels: {
    ...ROUTE_TABLE.workspaceModels,
    params: id,
    query: z.object({ provider: z.string().optional(), profile: z.string().optional(), refresh: bool }),
    response: z.object({
      provider: z.string(),
      catalog: z.unknown(),
      cached: z.boolean(),
      defaults: z.object({ modelId: z.string().optional(), modeId: z.string().optional() }),
    }),
  },
  /** Hermes' profiles (`hermes profile list` and the profiles folder); with `workspace`, what that workspace uses. */
  hermesProfiles: {
    ...ROUTE_TABLE.hermesProfiles,
    query: z.object({ workspace: z.string().optional() }),
    response: z.object({
      profiles: z.array(
        z.object({
          name: z.string(),
          active: z.boolean(),
          model: z.string().optional(),
          listed: z.boolean(),
          onDisk: z.boolean(),
        }),
      ),
      /** Why `hermes profile list` was not used (the folder scan still counts). */
      problem: z.string().optional(),
      workspace: z
        .object({
          /** The profile new Hermes sessions here use (undefined: Hermes' active one). */
          profile: z.string().optional(),
          own: z.boolean(),
          /** The name its own profile has (or would have). */
          ownName: z.string(),
        })
        .optional(),
    }),
  },
  /** The Hermes profile new sessions of a workspace use: a named one, or its own (`own: true`), or none (`profile: null`). */
  setWorkspaceProfile: {
    ...ROUTE_TABLE.setWorkspaceProfile,
    params: id,
    // Strict: a misspelt key would otherwise change nothing and answer 200.
    body: z.object({ profile: z.string().nullable().optional(), own: z.boolean().optional() }).strict(),
    response: z.object({ workspace }),
  },
  ...SESSION_ROUTES,
  rules: {
    ...ROUTE_TABLE.rules,
    query: z.object({ scope: z.enum(['global', 'workspace', 'session']).optional(), scopeId: z.string().optional() }),
    response: z.object({ rules: z.array(storedRule) }),
  },
  addRule: {
    ...ROUTE_TABLE.addRule,
    body: z.object({
      scope: z.enum(['global', 'workspace', 'session']),
      scopeId: z.string().optional(),
      rule: permissionRule,
    }),
    response: z.object({ rule: storedRule }),
  },
  updateRule: {
    ...ROUTE_TABLE.updateRule,
    params: id,
    body: z.object({ rule: permissionRule }),
    response: z.object({ rule: storedRule }),
  },
  deleteRule: {
    ...ROUTE_TABLE.deleteRule,
    params: id,
    response: ok,
  },
  audit: {
    ...ROUTE_TABLE.audit,
    query: z.object({ session: z.string().optional(), limit: z.coerce.number().int().min(1).max(1000).optional() }),
    response: z.object({ records: z.array(auditRecord) }),
  },
  /** Tokens and cost of every stored session (archived too), totalled by agent, workspace or UTC day (`talaria usage`). */
  usage: {
    ...ROUTE_TABLE.usage,
    /** `session`: that one session only (the web header's cost), by Talaria's id. */
    query: z.object({ by: z.enum(['agent', 'workspace', 'day']).optional(), session: z.string().min(1).optional() }),
    response: z.object({
      by: z.enum(['agent', 'workspace', 'day']),
      groups: z.array(usageTotal.extend({ key: z.string() })),
      total: usageTotal,
      sessions: z.array(sessionUsage),
      /** Why some Hermes figures are Talaria's own (unknown state.db shape, busy, missing). */
      problems: z.array(z.string()),
    }),
  },
  ...HERMES_ROUTES,
} as const satisfies Record<string, RouteDef>;

export type Routes = typeof ROUTES;
export type RouteName = keyof Routes;

type Infer<T> = T extends z.ZodTypeAny ? z.input<T> : never;
type Out<T> = T extends z.ZodTypeAny ? z.output<T> : never;

/** What a caller passes for a route: only the parts the route has. */
export type RouteInput<N extends RouteName> = (Routes[N] extends { params: infer P }
  ? { params: Infer<P> }
  : { params?: undefined }) &
  (Routes[N] extends { query: infer Q } ? { query?: Infer<Q> } : { query?: undefined }) &
  (Routes[N] extends { body: infer B } ? { body: Infer<B> } : { body?: undefined });

/** What a route answers (string for text routes). */
export type RouteOutput<N extends RouteName> = Routes[N] extends { response: infer R } ? Out<R> : string;
