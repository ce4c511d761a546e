import { z } from 'zod';
import {
  auditRecord,
  branchNode,
  imageInput,
  pendingPermission,
  permissionRule,
  providerInfo,
  queuedPrompt,
  role,
  sessionSnapshot,
  sessionSummary,
  steerHow,
  storedRule,
  wireFrame,
  usageCost,
  workspace,
} from './models.js';
import { HERMES_ROUTES } from './hermes.js';
import { ROUTE_TABLE, type RouteLocation } from './wire.js';

/**
 * The HTTP API, one table: each route's location (method, path, role: wire.ts's ROUTE_TABLE)
 * and the schemas of params, query, body and response. The server mounts it, the typed client
 * calls it, the contract tests walk it.
 */
export interface RouteDef extends RouteLocation {
  params?: z.ZodTypeAny;
  query?: z.ZodTypeAny;
  body?: z.ZodTypeAny;
  /** Undefined for text responses (exports). */
  response?: z.ZodTypeAny;
}

const id = z.object({ id: z.string().min(1) });
const ok = z.object({ ok: z.literal(true) });
const archivedFilter = z.enum(['exclude', 'include', 'only']).optional();
const bool = z.enum(['true', 'false']).optional();

export const usageTokens = z.object({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
  reasoning: z.number(),
  total: z.number(),
});
const usageTotal = z.object({
  sessions: z.number().int(),
  tokens: usageTokens,
  cost: usageCost.extend({ unpriced: z.number().int() }),
});
/** One stored session's tokens and cost: Hermes' from its state.db, other agents' from Talaria's store. */
export const sessionUsage = z.object({
  sessionId: z.string(),
  agentSessionId: z.string().optional(),
  provider: z.string(),
  profile: z.string().optional(),
  workspaceId: z.string().optional(),
  workspace: z.string().optional(),
  title: z.string().optional(),
  createdAt: z.number(),
  day: z.string(),
  tokens: usageTokens,
  cost: usageCost,
  from: z.enum(['hermes-state-db', 'talaria']),
  hermes: z
    .object({
      costStatus: z.string().nullable(),
      costSource: z.string().nullable(),
      model: z.string().nullable(),
      apiCalls: z.number(),
      /** Rows Hermes keeps apart for the same conversation, added in: compression continuations, subagents. */
      lineage: z
        .object({ continuations: z.number().int(), subagents: z.number().int(), unpricedParts: z.number().int() })
        .optional(),
    })
    .optional(),
});

/** MCP server entry as ACP's session/new takes it (kept loose: stdio, http and sse shapes). */
const mcpServer = z.object({ name: z.string() }).passthrough();

export const newSessionBody = z.object({
  provider: z.string().optional(),
  profile: z.string().optional(),
  model: z.string().optional(),
  mode: z.string().optional(),
  permissionMode: z.string().optional(),
  mcpServers: z.array(mcpServer).optional(),
});

export const promptBody = z
  .object({
    text: z.string().default(''),
    images: z.array(imageInput).max(16).default([]),
  })
  .refine((b) => b.text.trim() !== '' || b.images.length > 0, { message: 'a prompt needs text or an image' });

/**
 * A branch (issue 14): a rewind to a user message (`at`: its entry id, or `back`: the N-th user
 * message from the end), or the conversation continued with another agent (`provider` alone).
 * `text`: the edited message, sent on the new branch at once.
 */
export const branchBody = z
  .object({
    at: z.string().min(1).optional(),
    back: z.number().int().min(1).optional(),
    text: z.string().optional(),
    provider: z.string().min(1).optional(),
    profile: z.string().optional(),
  })
  .refine((b) => !(b.at !== undefined && b.back !== undefined), { message: 'give at or back, not both' })
  .refine((b) => b.at !== undefined || b.back !== undefined || b.provider !== undefined, {
    message: 'a branch needs at or back (rewind) or provider (continue elsewhere)',
  })
  .refine((b) => b.text === undefined || b.text.trim() !== '', { message: 'text must not be blank' });

/**
 * A one-shot run: the folder, the prompt and what a new session takes (no model or mode: a warm
 * spare fits); or `session`, a stored session opened (load, resume or its stored thread) and
 * prompted instead (`talaria run --session`), with `provider` and `profile` as openSession takes
 * them; its permission mode is the session's own (`permissionMode` is refused, not ignored).
 */
const runBody = newSessionBody
  .omit({ model: true, mode: true, mcpServers: true })
  .extend({
    path: z.string().min(1).optional(),
    session: z.string().min(1).optional(),
    text: z.string().refine((t) => t.trim() !== '', { message: 'a prompt needs text' }),
  })
  .refine((b) => (b.path === undefined) !== (b.session === undefined), {
    message: 'give path (a new session) or session (an existing one), not both',
  })
  .refine((b) => b.session === undefined || b.permissionMode === undefined, {
    message: 'permissionMode is for a new session (path): a stored session keeps the one it was made with',
  });

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
  listSessions: {
    ...ROUTE_TABLE.listSessions,
    query: z.object({ workspace: z.string().optional(), archived: archivedFilter, agent: bool }),
    response: z.object({ sessions: z.array(sessionSummary), agentProblem: z.string().optional() }),
  },
  createSession: {
    ...ROUTE_TABLE.createSession,
    params: id,
    body: newSessionBody,
    response: z.object({ snapshot: sessionSnapshot }),
  },
  /**
   * One call for a one-shot run (`talaria run` on a warm server, issue 16): opens the folder as a
   * workspace, starts a new session (a warm spare when one fits) and sends the prompt. The
   * snapshot is from before the prompt: a subscriber `since` its seq gets the whole turn. An
   * error answer means no prompt was sent.
   */
  run: {
    ...ROUTE_TABLE.run,
    body: runBody,
    response: z.object({
      workspace,
      snapshot: sessionSnapshot,
      turn: z.object({ id: z.string(), queued: z.boolean(), position: z.number() }),
    }),
  },
  /**
   * `run`, answered with the turn as it happens (NDJSON, run-stream.ts): the line
   * `{"type":"run", workspace, snapshot, turn}`, then each event of the session after the snapshot,
   * one per line, until the run's turn has ended (`{"type":"snapshot"}` lines stand for events a slow
   * reader missed once the log no longer holds them). An error answer (JSON) sent no prompt.
   */
  runStream: {
    ...ROUTE_TABLE.runStream,
    body: runBody,
  },
  /** The snapshot; opens the session at its agent first when `open=true` (load, resume or the stored thread). */
  snapshot: {
    ...ROUTE_TABLE.snapshot,
    params: id,
    response: z.object({ snapshot: sessionSnapshot }),
  },
  openSession: {
    ...ROUTE_TABLE.openSession,
    params: id,
    body: z.object({
      provider: z.string().optional(),
      profile: z.string().optional(),
      /**
       * For a session only the agent lists (`stored: false` in `?agent=true`): the workspace whose
       * list showed it (its `workspaceId`). The agent loads it and Talaria stores it from then on.
       */
      workspace: z.string().optional(),
    }),
    response: z.object({ snapshot: sessionSnapshot }),
  },
  prompt: {
    ...ROUTE_TABLE.prompt,
    params: id,
    body: promptBody,
    response: z.object({ id: z.string(), queued: z.boolean(), position: z.number() }),
  },
  queue: {
    ...ROUTE_TABLE.queue,
    params: id,
    response: z.object({ queue: z.array(queuedPrompt) }),
  },
  editQueued: {
    ...ROUTE_TABLE.editQueued,
    params: z.object({ id: z.string().min(1), item: z.string().min(1) }),
    body: z.object({ text: z.string().min(1) }),
    response: z.object({ queue: z.array(queuedPrompt) }),
  },
  removeQueued: {
    ...ROUTE_TABLE.removeQueued,
    params: z.object({ id: z.string().min(1), item: z.string().min(1) }),
    response: z.object({ queue: z.array(queuedPrompt) }),
  },
  cancel: {
    ...ROUTE_TABLE.cancel,
    params: id,
    response: z.object({ cancelled: z.boolean() }),
  },
  setModel: {
    ...ROUTE_TABLE.setModel,
    params: id,
    body: z.object({ modelId: z.string().min(1) }),
    response: ok,
  },
  setMode: {
    ...ROUTE_TABLE.setMode,
    params: id,
    body: z.object({ modeId: z.string().min(1) }),
    response: ok,
  },
  permissions: {
    ...ROUTE_TABLE.permissions,
    params: id,
    response: z.object({ pending: z.array(pendingPermission) }),
  },
  /** First answer wins; a later one gets `conflict` with who answered. */
  answerPermission: {
    ...ROUTE_TABLE.answerPermission,
    params: z.object({ id: z.string().min(1), requestKey: z.string().min(1) }),
    /** `rule`: with an "always" answer, the (edited) rule to keep for this session instead of the one the answer implies. */
    body: z.union([
      z.object({ optionId: z.string().min(1), rule: permissionRule.optional() }),
      z.object({ cancel: z.literal(true) }),
    ]),
    response: z.object({ answeredBy: z.string() }),
  },
  archive: {
    ...ROUTE_TABLE.archive,
    params: id,
    body: z.object({ archived: z.boolean() }),
    response: z.object({ session: sessionSummary }),
  },
  fork: {
    ...ROUTE_TABLE.fork,
    params: id,
    response: z.object({ snapshot: sessionSnapshot }),
  },
  /** The branch tree the session belongs to, from its root; `current` is this session. */
  branches: {
    ...ROUTE_TABLE.branches,
    params: id,
    response: z.object({ current: z.string(), tree: branchNode }),
  },
  /** Rewind or continue elsewhere: a new session (a branch); with `text`, its first message is sent. */
  createBranch: {
    ...ROUTE_TABLE.createBranch,
    params: id,
    body: branchBody,
    response: z.object({ snapshot: sessionSnapshot, turnId: z.string().optional() }),
  },
  /**
   * "Steer now": into the running turn (the agent's own way, else cancel and resend); a normal
   * message when nothing runs. `queued`: a queued prompt's id, taken off the queue and steered in
   * one step; the `queue.updated` that drops it names the turn that carries it (`started`).
   */
  steer: {
    ...ROUTE_TABLE.steer,
    params: id,
    body: z
      .object({
        text: z
          .string()
          .refine((t) => t.trim() !== '', { message: 'a steer needs text' })
          .optional(),
        queued: z.string().min(1).optional(),
      })
      .refine((b) => (b.text === undefined) !== (b.queued === undefined), {
        message: "give text, or queued (a queued prompt's id), not both",
      }),
    response: z.object({ how: steerHow, via: z.string().optional(), turnId: z.string().optional() }),
  },
  /** Text: Markdown, JSON or an NDJSON wire fixture (Content-Disposition names the file). */
  exportSession: {
    ...ROUTE_TABLE.exportSession,
    params: id,
    query: z.object({ format: z.enum(['md', 'json', 'fixture']).default('md') }),
  },
  importSession: {
    ...ROUTE_TABLE.importSession,
    body: z.object({
      text: z.string().min(1),
      provider: z.string().optional(),
      cwd: z.string().optional(),
      title: z.string().optional(),
    }),
    response: z.object({ session: sessionSummary }),
  },
  /** The session's wire log (both directions) for an inspector; page with `after`. */
  wireLog: {
    ...ROUTE_TABLE.wireLog,
    params: id,
    query: z.object({
      after: z.coerce.number().int().min(0).optional(),
      limit: z.coerce.number().int().min(1).max(5000).optional(),
    }),
    response: z.object({ frames: z.array(wireFrame), next: z.number().optional() }),
  },
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
