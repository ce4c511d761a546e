import { z } from 'zod';
import { imageInput, usageCost } from './models.js';
import type { RouteLocation } from './wire.js';

/** The HTTP API's shared pieces: the route shape and the schemas more than one route (or the client) uses. */

/** One route: its location (wire.ts's ROUTE_TABLE) and the schemas of what it takes and answers. */
export interface RouteDef extends RouteLocation {
  params?: z.ZodTypeAny;
  query?: z.ZodTypeAny;
  body?: z.ZodTypeAny;
  /** Undefined for text responses (exports). */
  response?: z.ZodTypeAny;
}

export const id = z.object({ id: z.string().min(1) });
export const ok = z.object({ ok: z.literal(true) });
export const archivedFilter = z.enum(['exclude', 'include', 'only']).optional();
export const bool = z.enum(['true', 'false']).optional();

export const usageTokens = z.object({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
  reasoning: z.number(),
  total: z.number(),
});
export const usageTotal = z.object({
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
export const mcpServer = z.object({ name: z.string() }).passthrough();

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
export const runBody = newSessionBody
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
