import { z } from 'zod';
import { providerInfo } from './models.js';

/**
 * Sign-in over HTTP (issue 13): one agent's readiness with the sign-in methods of its `auth`
 * gap, and a sign-in with an agent-type method (ACP `authenticate`). Terminal-type methods need
 * a terminal: the answer says to run `talaria login` (the web terminal panel is not built yet).
 * Kept beside ROUTES (same RouteDef shape), mounted with them.
 */
const agentId = z.object({ id: z.string().min(1) });

export const authMethodInfo = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['agent', 'terminal', 'env_var']),
  description: z.string().optional(),
  vars: z.array(z.string()).optional(),
});

const agentReadiness = z.object({ provider: providerInfo });

export const AUTH_ROUTES = {
  agentReadiness: {
    method: 'GET',
    path: '/api/agents/:id/readiness',
    role: 'observer',
    params: agentId,
    response: agentReadiness,
  },
  agentLogin: {
    method: 'POST',
    path: '/api/agents/:id/login',
    role: 'controller',
    params: agentId,
    body: z.object({ methodId: z.string().min(1) }),
    // After the sign-in, readiness checked for real (the agent started, a session opened).
    response: agentReadiness.extend({ ok: z.literal(true) }),
  },
} as const;

export type AuthRouteName = keyof typeof AUTH_ROUTES;
