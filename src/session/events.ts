import { z } from 'zod';

/**
 * Every event the session core emits, defined once: name + schema (after opencode's bus).
 * The CLI's --ndjson output, the server's WebSocket and the web UI derive from this registry.
 * Schemas are for boundaries and tests; the hot path does not validate.
 */
const json = z.unknown();
const block = z.object({ type: z.string() }).passthrough();
const usage = z
  .object({
    inputTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    totalTokens: z.number().optional(),
    thoughtTokens: z.number().optional(),
    cachedReadTokens: z.number().optional(),
    cachedWriteTokens: z.number().optional(),
  })
  .passthrough();
const turnError = z.object({ code: z.string(), message: z.string(), data: json.optional() });

export const sessionState = z.enum(['idle', 'running', 'cancelling', 'closed', 'failed']);
export const stopReason = z.union([
  z.enum(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled', 'permission_denied', 'error']),
  z.string(),
]);

export const EVENTS = {
  'session.state': z.object({ state: sessionState, previous: sessionState }),
  'session.closed': z.object({ reason: z.string() }),
  'turn.queued': z.object({ turnId: z.string(), position: z.number() }),
  'turn.started': z.object({ turnId: z.string(), prompt: z.array(block) }),
  'turn.ended': z.object({
    turnId: z.string(),
    stopReason,
    usage: usage.optional(),
    error: turnError.optional(),
    durationMs: z.number(),
  }),
  'entry.added': z.object({ index: z.number(), entry: json }),
  'entry.updated': z.object({ index: z.number(), entry: json }),
  'plan.updated': z.object({ plan: z.array(json).nullable() }),
  'commands.updated': z.object({ commands: z.array(json) }),
  'mode.updated': z.object({ modeId: z.string() }),
  'config.updated': z.object({ configOptions: z.array(json) }),
  'info.updated': z.object({ title: z.string().optional(), updatedAt: z.string().optional() }),
  'context.updated': z.object({ context: json }),
  'catalog.updated': z.object({ catalog: json }),
  'permission.asked': z.object({
    requestKey: z.string(),
    toolCallId: z.string(),
    title: z.string().optional(),
    options: z.array(json),
    subject: json,
  }),
  'permission.decided': z.object({
    requestKey: z.string(),
    toolCallId: z.string(),
    outcome: json,
    decidedBy: z.string(),
    answeredBy: z.string().optional(),
    reason: z.string(),
    rule: json.optional(),
  }),
  'protocol.error': z.object({ kind: z.string(), preview: z.string(), bytes: z.number() }),
} as const;

export type EventName = keyof typeof EVENTS;
export const EVENT_NAMES = Object.keys(EVENTS) as EventName[];

/** Common envelope: which session, a per-session sequence number, and when. */
export interface Envelope {
  sessionId: string;
  seq: number;
  at: number;
}

export type EventOf<K extends EventName> = Envelope & { type: K } & z.infer<(typeof EVENTS)[K]>;
export type SessionEvent = { [K in EventName]: EventOf<K> }[EventName];

/** Validates one event against its schema (tests, server boundary). Returns an error string or null. */
export function checkEvent(ev: { type: string }): string | null {
  const schema = (EVENTS as Record<string, z.ZodTypeAny>)[ev.type];
  if (!schema) return `unknown event type ${ev.type}`;
  const r = schema.safeParse(ev);
  return r.success ? null : r.error.message;
}
