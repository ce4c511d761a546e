import { z } from 'zod';

/**
 * Every event the host emits, defined once: name + schema (same style as session/events.ts).
 * Session events keep flowing on each Session; these are about agent processes.
 */
export const agentKey = z.object({ provider: z.string(), profile: z.string().optional(), workspace: z.string() });
const exitCode = z.number().nullable();
const signal = z.string().nullable();

export const EXIT_REASONS = ['idle', 'env_changed', 'overflow', 'stalled', 'shutdown', 'crashed'] as const;
export type ExitReason = (typeof EXIT_REASONS)[number];

/** Which quirk set the agent got and why (providers/quirks); `restartedFrom`: the guess it was first started with. */
const quirks = z.object({
  set: z.string(),
  label: z.string(),
  basis: z.string(),
  why: z.string(),
  restartedFrom: z.string().optional(),
});

export const HOST_EVENTS = {
  /** A process is up and answered `initialize`. */
  'agent.spawned': z.object({
    key: agentKey,
    generation: z.number(),
    pid: z.number(),
    command: z.string(),
    args: z.array(z.string()),
    quirks: quirks.optional(),
  }),
  /** A process is gone, for whatever reason (crashes also emit agent.crashed first). */
  'agent.exited': z.object({
    key: agentKey,
    generation: z.number(),
    pid: z.number().nullable(),
    reason: z.enum(EXIT_REASONS),
    exitCode,
    signal,
  }),
  /** A process died on its own (or never got through initialize). */
  'agent.crashed': z.object({
    key: agentKey,
    generation: z.number(),
    pid: z.number().nullable(),
    exitCode,
    signal,
    stderrTail: z.string(),
    /** Consecutive crashes so far. */
    crashes: z.number(),
    /** Sessions that were bound to it (they reload on their next use). */
    sessions: z.array(z.string()),
  }),
  /** Crashing in a loop: no new process before `retryAt`. */
  'agent.backoff': z.object({
    key: agentKey,
    crashes: z.number(),
    delayMs: z.number(),
    retryAt: z.number(),
    message: z.string(),
  }),
  /** No frame from the agent for `silentMs` during a turn: the turn is cancelled (then the agent killed if still silent). */
  'turn.stalled': z.object({
    key: agentKey,
    generation: z.number(),
    sessionId: z.string(),
    turnId: z.string().optional(),
    silentMs: z.number(),
  }),
  /** A turn waits for a free slot (per-process concurrency limit). */
  'turn.waiting': z.object({ key: agentKey, sessionId: z.string(), position: z.number(), limit: z.number() }),
  /**
   * After a cancel, the processes the cancelled turn started: ended, still alive after SIGKILL
   * (`survived`), or `left` running because another session's work ran on the same process then.
   */
  'turn.reaped': z.object({
    key: agentKey,
    generation: z.number(),
    sessionId: z.string(),
    turnId: z.string().optional(),
    ended: z.array(z.number()),
    survived: z.array(z.number()),
    left: z.array(z.number()),
  }),
  /** A session was loaded into a new process (after a crash, reap, env change or overflow). */
  'session.rebound': z.object({ key: agentKey, sessionId: z.string(), generation: z.number() }),
  /**
   * A session continues in a fresh agent session seeded from its thread (after a context
   * overflow): same Session object, new agent session id.
   */
  'session.reseeded': z.object({
    key: agentKey,
    sessionId: z.string(),
    previousSessionId: z.string(),
    reason: z.enum(['overflow', 'rewind', 'continue']),
    generation: z.number(),
  }),
} as const;

export type HostEventName = keyof typeof HOST_EVENTS;
export const HOST_EVENT_NAMES = Object.keys(HOST_EVENTS) as HostEventName[];
export type AgentKey = z.infer<typeof agentKey>;

export interface HostEnvelope {
  seq: number;
  at: number;
}

export type HostEventOf<K extends HostEventName> = HostEnvelope & { type: K } & z.infer<(typeof HOST_EVENTS)[K]>;
export type HostEvent = { [K in HostEventName]: HostEventOf<K> }[HostEventName];

/** Validates one event against its schema (tests, server boundary). Returns an error string or null. */
export function checkHostEvent(ev: { type: string }): string | null {
  const schema = (HOST_EVENTS as Record<string, z.ZodTypeAny>)[ev.type];
  if (!schema) return `unknown host event type ${ev.type}`;
  const r = schema.safeParse(ev);
  return r.success ? null : r.error.message;
}
