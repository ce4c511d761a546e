import { z } from 'zod';
import { providerInfo } from './models.js';
import { REGISTRY_ROUTES } from './registry.js';
import { ROUTE_TABLE } from './wire.js';

/**
 * Sign-in over HTTP (issue 13): one agent's readiness with the sign-in methods of its `auth`
 * gap, and a sign-in with an agent-type method (ACP `authenticate`). Terminal-type methods run
 * in a pseudo-terminal streamed over a WebSocket of their own (PTY_* below); the POST refuses
 * them with 409. Kept beside ROUTES (same RouteDef shape), mounted with them.
 */
const agentId = z.object({ id: z.string().min(1) });

export const authMethodInfo = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['agent', 'terminal', 'env_var']),
  description: z.string().optional(),
  vars: z.array(z.string()).optional(),
});

export type AuthMethodInfo = z.infer<typeof authMethodInfo>;

/** The sign-in methods an `auth` gap carries (the gap schema passes them through untyped). */
export function gapAuthMethods(gap: Record<string, unknown>): AuthMethodInfo[] {
  const r = z.array(authMethodInfo).safeParse(gap.authMethods);
  return r.success ? r.data : [];
}

const agentReadiness = z.object({ provider: providerInfo });

export const AUTH_ROUTES = {
  agentReadiness: {
    ...ROUTE_TABLE.agentReadiness,
    params: agentId,
    response: agentReadiness,
  },
  /**
   * The sign-in methods as the agent lists them to a sign-in (terminal auth offered): the gap's own
   * list comes from an everyday session, which does not offer terminal auth, so it can lack them.
   */
  agentSignInMethods: {
    ...ROUTE_TABLE.agentSignInMethods,
    params: agentId,
    response: z.object({ methods: z.array(authMethodInfo) }),
  },
  agentLogin: {
    ...ROUTE_TABLE.agentLogin,
    params: agentId,
    body: z.object({ methodId: z.string().min(1) }),
    // After the sign-in, readiness checked for real (the agent started, a session opened).
    response: agentReadiness.extend({ ok: z.literal(true) }),
  },
  // The registry list of the same page (contract/registry.ts), mounted with these.
  ...REGISTRY_ROUTES,
} as const;

export type AuthRouteName = keyof typeof AUTH_ROUTES;

/**
 * The terminal sign-in channel: a WebSocket upgrade on `/api/agents/ID/login/pty?method=M&cols=C&rows=R`
 * (controller token, Host and Origin checked like `/ws`). Refused before the upgrade: 401 no token,
 * 403 observer, 404 unknown agent, 400 bad query, 409 a sign-in of that agent already running.
 * After it: the agent's terminal method runs in a pty; its output comes as binary frames (raw
 * bytes), everything else as JSON text frames below; the socket closing kills the command.
 */
export const PTY_PATH = /^\/api\/agents\/([^/]+)\/login\/pty$/;
export const ptyPath = (id: string): string => `/api/agents/${encodeURIComponent(id)}/login/pty`;

const size = (max: number) => z.coerce.number().int().min(2).max(max);
export const ptyQuery = z.object({
  method: z.string().min(1),
  cols: size(1000).optional(),
  rows: size(500).optional(),
});

export const ptyClientMessage = z.discriminatedUnion('type', [
  /** Keys typed, as the terminal encodes them (xterm's onData). */
  z.object({ type: z.literal('input'), data: z.string().max(64 * 1024) }),
  /** The panel's size changed: the pty follows (SIGWINCH to the command). */
  z.object({ type: z.literal('resize'), cols: size(1000), rows: size(500) }),
]);
export type PtyClientMessage = z.infer<typeof ptyClientMessage>;

export const ptyServerMessage = z.discriminatedUnion('type', [
  /** The command runs (argv as run; `pid` of the pty's relay, whose group is killed at the end). */
  z.object({ type: z.literal('started'), methodId: z.string(), command: z.array(z.string()), pid: z.number().int() }),
  /** The command ended (null code: killed by `signal`). */
  z.object({ type: z.literal('exit'), code: z.number().int().nullable(), signal: z.string().nullable() }),
  /** Readiness checked for real afterwards (the agent started, a session opened); the last message. */
  z.object({ type: z.literal('result'), ok: z.boolean(), provider: providerInfo }),
  /** The sign-in could not run (unknown or non-terminal method, the agent not starting); the last message. */
  z.object({ type: z.literal('error'), code: z.string(), message: z.string(), fix: z.string().optional() }),
]);
export type PtyServerMessage = z.infer<typeof ptyServerMessage>;
