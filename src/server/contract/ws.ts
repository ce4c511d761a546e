import { z } from 'zod';
import { EVENTS } from '../../session/events.js';
import { apiError } from './errors.js';
import { recordingDelay, recordingFailure, role, sessionOrigin, sessionSnapshot, sessionSummary } from './models.js';

/**
 * The `/ws` protocol. One connection carries any number of session subscriptions.
 *
 * Every event of a session has a per-session sequence number from the store's append-only
 * event log (1, 2, 3… with no holes, but for one jump after a server restart, at a reset that
 * comes with a snapshot). `subscribe {since: N}` answers with exactly the events
 * after N, then live ones — or, when N is older than the log keeps (or absent), a `snapshot`
 * at seq M followed by the events after M. Then `synced` says the client is live.
 *
 * The events are the session bus events after Talaria's fixes (src/session/events.ts) plus
 * the server's own (below) — never raw ACP frames.
 */

/** Events the server adds to a session's stream. */
export const SERVER_EVENTS = {
  /** A permission request was answered (by a client, a rule, a timeout or a cancel): first answer wins. */
  'permission.resolved': z.object({
    requestKey: z.string(),
    toolCallId: z.string(),
    outcome: z.unknown(),
    /** Who decided: 'user' | 'rule' | 'timeout' | 'cancel' …, as the broker says. */
    decidedBy: z.string(),
    /** The token label (or id) of the client that answered, when a client did. */
    answeredBy: z.string().optional(),
  }),
  /**
   * A message entry grew by `text` (and nothing else changed): the compact form of the bus's
   * `entry.updated`, so a streamed answer costs its chunks, not its length per chunk.
   */
  'entry.appended': z.object({ index: z.number(), text: z.string() }),
  // `queue.updated` (the prompt queue changed) is the session's own event (src/session/events.ts).
  /** The session was attached to an agent (opened, reopened after a restart, forked). */
  'session.live': z.object({ origin: sessionOrigin, provider: z.string() }),
  /** The model or mode a person chose was applied. */
  'choice.updated': z.object({ modelId: z.string().optional(), modeId: z.string().optional() }),
  /**
   * The store does not take this session's writes for now (locked, restarting): what the client
   * shows is not saved yet; the recorder holds it and retries. Again after each failed retry.
   */
  'recording.delayed': recordingDelay,
  /** The store took everything that waited (once per outage). */
  'recording.caught_up': z.object({ frames: z.number(), outageMs: z.number() }),
  /** Part of the session was not stored and will not be (the recorder gave up or the store refused for good). */
  'recording.failed': recordingFailure,
  /** Something a person should look at (the UI turns it into a browser notification). */
  attention: z.object({
    kind: z.enum(['permission', 'turn.ended', 'crashed', 'not_ready']),
    text: z.string(),
  }),
} as const;

export const STREAM_EVENTS = { ...EVENTS, ...SERVER_EVENTS } as const;
export type StreamEventName = keyof typeof STREAM_EVENTS;

const envelope = z.object({ sessionId: z.string(), seq: z.number().int().min(1), at: z.number() });

/** One event of a session's stream: envelope + type + payload. */
export const streamEvent = z.union(
  (Object.keys(STREAM_EVENTS) as StreamEventName[]).map((type) =>
    envelope.extend({ type: z.literal(type) }).and((STREAM_EVENTS as Record<string, z.ZodTypeAny>)[type]!),
  ) as unknown as [z.ZodTypeAny, z.ZodTypeAny, ...z.ZodTypeAny[]],
);
type Env = z.infer<typeof envelope>;
export type StreamEvent = {
  [K in StreamEventName]: Env & { type: K } & z.infer<(typeof STREAM_EVENTS)[K]>;
}[StreamEventName];
export type StreamEventOf<K extends StreamEventName> = Extract<StreamEvent, { type: K }>;

// ---- client → server ----
export const clientMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('subscribe'),
    sessionId: z.string().min(1),
    /** The last seq the client has; omit for a snapshot. */
    since: z.number().int().min(0).optional(),
  }),
  z.object({ type: z.literal('unsubscribe'), sessionId: z.string().min(1) }),
  /** Application-level ping (browsers cannot send WebSocket pings); the server answers `pong`. */
  z.object({ type: z.literal('ping'), id: z.string().optional() }),
]);
export type ClientMessage = z.infer<typeof clientMessage>;

// ---- server → client ----
export const serverMessage = z.discriminatedUnion('type', [
  /** First message on every connection. */
  z.object({
    type: z.literal('welcome'),
    role,
    tokenId: z.string(),
    version: z.string(),
    /** The server pings this often; a connection that misses two is closed. */
    heartbeatMs: z.number(),
  }),
  z.object({ type: z.literal('snapshot'), sessionId: z.string(), snapshot: sessionSnapshot }),
  /**
   * A session's events in seq order: what was appended during one turn of the server's event
   * loop (or a slice of a catch-up). Batched so a flood costs one message per turn, not per event.
   */
  z.object({
    type: z.literal('events'),
    sessionId: z.string(),
    events: z.array(z.custom<StreamEvent>((v) => streamEvent.safeParse(v).success)).min(1),
  }),
  /** Catch-up done: every event up to `seq` was sent; live events follow. */
  z.object({ type: z.literal('synced'), sessionId: z.string(), seq: z.number() }),
  /**
   * The client fell behind (its outbound queue overflowed) or the server lost track: events
   * for this session were dropped for this client. Subscribe again with `since` = the last seq
   * it has; the log answers the rest (or a snapshot).
   */
  z.object({ type: z.literal('resync'), sessionId: z.string(), reason: z.enum(['overflow', 'restart']) }),
  /** A session appeared or changed in a list (created, archived, title, live/state, attention). */
  z.object({ type: z.literal('session.updated'), session: sessionSummary }),
  /** The fleet's hosts or other hosts' session statuses changed (a server in a fleet): lists ask again. */
  z.object({ type: z.literal('fleet.updated') }),
  z.object({ type: z.literal('pong'), id: z.string().optional() }),
  /** An error about one client message (bad message, unknown session, forbidden). */
  z.object({ type: z.literal('error'), error: apiError, sessionId: z.string().optional() }),
]);
export type ServerMessage = z.infer<typeof serverMessage>;

/** WebSocket close codes the server uses. */
export const WS_CLOSE = {
  /** The token was revoked. */
  revoked: 4001,
  /** Missed heartbeats. */
  dead: 4002,
  /** The server is stopping. */
  shutdown: 1001,
  /** A frame over the size limit. */
  tooLarge: 1009,
} as const;
