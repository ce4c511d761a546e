import { z } from 'zod';
import { usageCost } from './models.js';
import { ROUTE_TABLE } from './wire.js';

/**
 * Hermes sessions from its other channels (cli, telegram, …), read-only from its state.db
 * (providers/hermes/channel-sessions.ts), and continued in Talaria (issue 38).
 */
export const hermesChannelSession = z.object({
  id: z.string(),
  source: z.string(),
  title: z.string().nullable(),
  preview: z.string().nullable(),
  model: z.string().nullable(),
  cwd: z.string().nullable(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  endReason: z.string().nullable(),
  lastActive: z.number(),
  messageCount: z.number(),
  toolCallCount: z.number(),
  continuations: z.array(z.string()),
  usage: z
    .object({ inputTokens: z.number(), outputTokens: z.number(), apiCalls: z.number(), cost: usageCost })
    .passthrough()
    .optional(),
});
export type HermesChannelSession = z.infer<typeof hermesChannelSession>;

const profileRead = z.object({
  profile: z.string(),
  /** `ok`, or why nothing was read (unknown state.db shape, busy, error): `message` says it. */
  kind: z.enum(['ok', 'missing', 'unknown-shape', 'busy', 'error']),
  message: z.string().optional(),
  sessions: z.array(hermesChannelSession),
});

const where = z.object({ profile: z.string().min(1), id: z.string().min(1) });

export const HERMES_ROUTES = {
  /** Every Hermes profile's sessions from other channels, newest first (`source`: one channel). */
  hermesSessions: {
    ...ROUTE_TABLE.hermesSessions,
    query: z.object({ profile: z.string().optional(), source: z.string().optional() }),
    response: z.object({ profiles: z.array(profileRead) }),
  },
  /** One, with its messages as thread entries (read-only). */
  hermesSession: {
    ...ROUTE_TABLE.hermesSession,
    params: where,
    response: z.object({ profile: z.string(), session: hermesChannelSession, entries: z.array(z.unknown()) }),
  },
  /** A new Talaria session seeded from its transcript (default agent: Hermes on the same profile). */
  continueHermesSession: {
    ...ROUTE_TABLE.continueHermesSession,
    params: where,
    body: z.object({ provider: z.string().optional(), workspace: z.string().optional() }),
    response: z.object({ id: z.string() }),
  },
} as const;
