/**
 * How `talaria acp` answers the editor: Talaria's errors as JSON-RPC errors, a turn's result as the
 * session/prompt answer, and answers that have something to follow them on the wire.
 */
import { TalariaError } from '../../protocol/errors.js';
import { RequestError } from '../../protocol/wire-error.js';
import type { TurnResult } from '../../session/turn.js';
import { recordOrEmpty } from '../../os/record.js';

export const RPC = {
  PARSE: -32700,
  INVALID: -32600,
  NOT_FOUND: -32601,
  PARAMS: -32602,
  INTERNAL: -32603,
  CANCELLED: -32800,
} as const;

/** An answer with what follows it on the wire (the session's state, after a session/new answer). */
export class Reply {
  constructor(
    readonly result: unknown,
    readonly after: () => void,
  ) {}
}

export class ParamsError extends RequestError {
  constructor(message: string) {
    super(RPC.PARAMS, message);
  }
}

/** Any error as the JSON-RPC error the editor gets. */
export function failure(err: unknown): { code: number; message: string; data?: unknown } {
  if (err instanceof RequestError) return { code: err.code, message: err.message, data: err.data };
  if (err instanceof TalariaError && err.code === 'auth_required') {
    // ACP's auth_required, with the agent's auth methods, so the editor (or an outer Talaria) can offer them.
    const d = (err.details ?? {}) as { authMethods?: unknown; data?: unknown };
    return {
      code: -32000,
      message: err.message,
      data: {
        ...(typeof d.data === 'object' && d.data !== null ? d.data : {}),
        authMethods: Array.isArray(d.authMethods) ? d.authMethods : [],
      },
    };
  }
  if (err instanceof TalariaError)
    return {
      code: err.code === 'invalid_argument' ? RPC.PARAMS : RPC.INTERNAL,
      message: err.message,
      data: { code: err.code },
    };
  return { code: RPC.INTERNAL, message: err instanceof Error ? err.message : String(err) };
}

/** A turn's result as the session/prompt answer (an error turn throws the RequestError the editor gets). */
export function promptAnswer(r: TurnResult): Record<string, unknown> {
  if (r.stopReason === 'error' && r.error?.code === 'auth_required') {
    // ACP's auth_required (-32000) with the agent's auth methods, as session/new would say it.
    const d = (r.error.data ?? {}) as { authMethods?: unknown };
    throw new RequestError(-32000, r.error.message, {
      code: 'auth_required',
      authMethods: Array.isArray(d.authMethods) ? d.authMethods : [],
    });
  }
  if (r.stopReason === 'error' && r.error)
    throw new RequestError(RPC.INTERNAL, r.error.message, {
      code: r.error.code,
      ...(r.error.data !== undefined ? { data: r.error.data } : {}),
    });
  const usage = r.usage as Record<string, unknown> | undefined;
  const complete = usage && ['inputTokens', 'outputTokens', 'totalTokens'].every((k) => typeof usage[k] === 'number');
  const raw = recordOrEmpty(r.response);
  return {
    stopReason: r.stopReason === 'permission_denied' ? 'cancelled' : r.stopReason,
    ...(complete ? { usage } : {}),
    ...(raw._meta !== undefined ? { _meta: raw._meta } : {}),
  };
}
