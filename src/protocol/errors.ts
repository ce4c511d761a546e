/**
 * Two error families (DESIGN.md conventions):
 * - RequestError (the ACP SDK's, wire-error.ts): a JSON-RPC error, the numeric code the peer sent or answer with.
 * - TalariaError: a local failure, carries a stable string code callers can switch on.
 */

export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  REQUEST_CANCELLED: -32800,
  AUTH_REQUIRED: -32000,
  RESOURCE_NOT_FOUND: -32002,
} as const;

/**
 * The protocol layer's codes and the layers above it that throw plain TalariaErrors (session,
 * host, harness). The store's codes are its own (store/errors.ts STORE_ERROR_CODES); the union
 * faces switch on, both, is TalariaErrorCode (harness/errors.ts).
 */
export const PROTOCOL_ERROR_CODES = [
  'connection_closed',
  'timeout',
  'aborted',
  'spawn_failed',
  'not_initialized',
  'unsupported',
  'outside_roots',
  'session_not_found',
  'session_closed',
  'session_failed',
  /** Another Talaria process (or this harness) has the stored session open. */
  'session_busy',
  /** A live session of a fleet is owned by another host that is online (its writer lease names it). */
  'session_owned_elsewhere',
  /** The store could not take what a live session sent (frames or turns lost). */
  'recording_failed',
  'busy',
  'agent_crashed',
  'agent_error',
  'auth_required',
  'context_overflow',
  'invalid_state',
  'invalid_argument',
  /** What was named is not there (a queued prompt that started or was removed). */
  'not_found',
  'permission_timeout',
  /** A fleet host was asked for a directory it does not have (another host's workspace path). */
  'workspace_missing',
] as const;
export type ProtocolErrorCode = (typeof PROTOCOL_ERROR_CODES)[number];

/** The one local error base: a string code callers switch on (faces add their own codes through C). */
export class TalariaError<C extends string = ProtocolErrorCode> extends Error {
  override readonly name: string = 'TalariaError';
  constructor(
    readonly code: C,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Why a connection died; every pending request is rejected with one of these. */
export type CloseCause = 'eof' | 'stream_error' | 'exit' | 'closed';

/**
 * `reason` says why the connection died; `cause` (the standard Error.cause) is the underlying error
 * when there was one (a stream's). `details.cause` repeats the reason: it is the data a TurnError
 * carries to the store and to clients, kept as it was.
 */
export class ConnectionClosedError extends TalariaError {
  override readonly name = 'ConnectionClosedError';
  constructor(
    readonly reason: CloseCause,
    message: string,
    details?: { exitCode?: number | null; signal?: string | null; stderrTail?: string; error?: string },
    options?: { cause?: unknown },
  ) {
    super('connection_closed', message, { cause: reason, ...details }, options);
  }
}

export function isTalariaError(e: unknown, code?: ProtocolErrorCode): e is TalariaError {
  return e instanceof TalariaError && (code === undefined || e.code === code);
}

/** An unknown thrown value as a message, for logs and error details. */
export function errMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
