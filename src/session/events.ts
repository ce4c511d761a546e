import { z } from 'zod';
import type { PermissionOption, PermissionOutcome, PermissionRule, PermissionSubject } from '../permission/types.js';
import type { ContextUsage, Entry, PlanEntry } from '../thread/types.js';
import type { Catalog } from './catalog.js';
import { isRecord } from '../os/record.js';

/**
 * Every event the session core emits, defined once: name + schema (after opencode's bus).
 * The CLI's --ndjson output, the server's WebSocket and the web UI derive from this registry.
 * Schemas are for boundaries and tests; the hot path does not validate. Payloads the core builds
 * itself (entries, plan, catalog, permission records) are typed as what they are and checked
 * for their shape.
 */
const json = z.unknown();
const ENTRY_KINDS = new Set(['user_message', 'assistant_message', 'thought', 'tool_call', 'notice', 'unknown']);
const entry = z.custom<Entry>(
  (v) => isRecord(v) && typeof v.id === 'string' && typeof v.kind === 'string' && ENTRY_KINDS.has(v.kind),
  'a thread entry',
);
const plan = z.custom<PlanEntry[] | null>(
  (v) => v === null || (Array.isArray(v) && v.every(isRecord)),
  'a plan (entries or null)',
);
const context = z.custom<ContextUsage>(isRecord, 'context usage');
const catalog = z.custom<Catalog>((v) => isRecord(v) && Array.isArray(v.others), 'a catalog');
const outcome = z.custom<PermissionOutcome>(
  (v) => isRecord(v) && (v.outcome === 'cancelled' || (v.outcome === 'selected' && typeof v.optionId === 'string')),
  'a permission outcome',
);
const option = z.custom<PermissionOption>((v) => isRecord(v) && typeof v.optionId === 'string', 'a permission option');
const subject = z.custom<PermissionSubject>(
  (v) => isRecord(v) && Array.isArray(v.paths) && Array.isArray(v.roots),
  'a permission subject',
);
const rule = z.custom<PermissionRule>((v) => isRecord(v) && typeof v.decision === 'string', 'a permission rule');
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
/** A queued prompt as every face shows it (prompt-queue.ts). */
const queuedPrompt = z.object({
  id: z.string(),
  text: z.string(),
  images: z.number(),
  position: z.number(),
  queuedAt: z.number(),
});
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
  /**
   * The prompt queue changed (queued, edited, removed, started, steered, dropped). `started`: the
   * queued prompt that left the queue as a turn, by its queued id and the turn's id (for one
   * steered from the queue, the turn that carries it); a queued prompt gone without it was
   * removed (or dropped by a cancel).
   */
  'queue.updated': z.object({
    queue: z.array(queuedPrompt),
    started: z.object({ id: z.string(), turnId: z.string() }).optional(),
  }),
  'turn.started': z.object({ turnId: z.string(), prompt: z.array(block) }),
  'turn.ended': z.object({
    turnId: z.string(),
    stopReason,
    usage: usage.optional(),
    error: turnError.optional(),
    durationMs: z.number(),
  }),
  /** `chunks`: how many streamed text chunks of one read this change folds in (absent: one update). */
  'entry.added': z.object({ index: z.number(), entry, chunks: z.number().optional() }),
  /** `appended`: the update only added this text to the end of the entry's `text` (streamed chunks). */
  'entry.updated': z.object({
    index: z.number(),
    entry,
    appended: z.string().optional(),
    chunks: z.number().optional(),
  }),
  /** turnId: the turn that set the plan (absent outside a turn), so a client draws it there. */
  'plan.updated': z.object({ plan, turnId: z.string().optional() }),
  'commands.updated': z.object({ commands: z.array(json) }),
  'mode.updated': z.object({ modeId: z.string() }),
  'config.updated': z.object({ configOptions: z.array(json) }),
  /** `meta`: the thread's agent `_meta` (the last session_info_update's), when it has one. */
  'info.updated': z.object({ title: z.string().optional(), updatedAt: z.string().optional(), meta: json.optional() }),
  'context.updated': z.object({ context }),
  'catalog.updated': z.object({ catalog }),
  'permission.asked': z.object({
    requestKey: z.string(),
    toolCallId: z.string(),
    title: z.string().optional(),
    options: z.array(option),
    subject,
  }),
  'permission.decided': z.object({
    requestKey: z.string(),
    toolCallId: z.string(),
    outcome,
    decidedBy: z.string(),
    answeredBy: z.string().optional(),
    reason: z.string(),
    rule: rule.optional(),
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
