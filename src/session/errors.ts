/**
 * How the session core names what went wrong: a thrown error becomes a TurnError (a turn's
 * `error`), with one shape per kind whoever raised it — a dead agent, auth required, any other
 * JSON-RPC error from the agent.
 */
import { ConnectionClosedError, TalariaError } from '../protocol/errors.js';
import { RequestError } from '../protocol/wire-error.js';
import type { TurnError } from './turn.js';

/**
 * The one auth-required normalizer: ACP's -32000 becomes a TalariaError `auth_required` whose
 * details list the agent's auth methods — from `error.data.authMethods` (pi, qwen), else the ones
 * it gave in initialize (codex, gemini, copilot). `label` names the agent (default "the agent").
 */
export function authRequired(
  err: unknown,
  o: { authMethods?: readonly unknown[]; label?: string } = {},
): TalariaError | undefined {
  if (!(err instanceof RequestError) || err.code !== -32000) return undefined;
  const data = err.data as { authMethods?: unknown } | undefined;
  const authMethods =
    Array.isArray(data?.authMethods) && data.authMethods.length > 0 ? data.authMethods : [...(o.authMethods ?? [])];
  const ids = authMethods
    .map((m) => (m as { id?: unknown; name?: unknown })?.id ?? (m as { name?: unknown })?.name)
    .filter((x) => typeof x === 'string');
  const who = o.label ?? 'the agent';
  const how = ids.length
    ? `; sign in with one of: ${ids.join(', ')}`
    : `; log in to ${who} or give it an API key (it lists no auth method)`;
  return new TalariaError('auth_required', `${who} needs credentials: ${errorText(err)}${how}`, {
    rpcCode: err.code,
    authMethods,
    ...(err.data !== undefined ? { data: err.data } : {}),
  });
}

/** An agent error with its detail (Hermes puts the useful part in data.details). */
export function errorText(e: unknown): string {
  if (e instanceof RequestError) {
    const d = e.data as { details?: unknown; message?: unknown } | undefined;
    const detail = typeof d?.details === 'string' ? d.details : typeof d?.message === 'string' ? d.message : '';
    return detail && detail !== e.message ? `${e.message}: ${detail}` : e.message;
  }
  return e instanceof Error ? e.message : String(e);
}

/**
 * Errors become a TurnError: a dead agent is `agent_crashed`, auth required (-32000) is
 * `auth_required` listing the auth methods, any other JSON-RPC error one `agent_error` shape.
 */
export function describeError(err: unknown, authMethods?: readonly unknown[]): TurnError {
  if (err instanceof ConnectionClosedError) {
    const d = (err.details ?? {}) as { cause?: string };
    const code = d.cause === 'closed' ? 'connection_closed' : 'agent_crashed';
    return { code, message: err.message, data: err.details };
  }
  const auth = authRequired(err, authMethods ? { authMethods } : {});
  if (auth) return { code: auth.code, message: auth.message, data: auth.details };
  if (err instanceof RequestError) return agentError(err.message, { rpcCode: err.code, data: err.data });
  if (err instanceof TalariaError)
    return { code: err.code, message: err.message, ...(err.details ? { data: err.details } : {}) };
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}

/** The one `agent_error` shape: `data.detail` (the provider's words), `data.httpStatus` when known, the raw rest. */
export interface AgentErrorData {
  rpcCode?: number;
  httpStatus?: number;
  detail?: string;
  data?: unknown;
  /** Where the error was found when the agent did not send a JSON-RPC error ('text': streamed as the answer). */
  source?: 'rpc' | 'text' | 'silence';
  /** opencode/kilo name the failing part instead of a message. */
  service?: string;
  errorName?: string;
}

/**
 * Builds the normalized model/agent error. Agents put the provider's detail in `message`,
 * `data.message`, `data.details`, `data.error(.message)` or `data.{service,errorName}`; gemini uses
 * the HTTP status as the JSON-RPC code; an "Error: 400 …"/"API Error: 400" text gives the status too.
 */
export function agentError(
  message: string,
  o: { rpcCode?: number; data?: unknown; source?: AgentErrorData['source'] } = {},
): TurnError {
  const d = o.data as Record<string, unknown> | string | undefined;
  const obj = typeof d === 'object' && d !== null ? d : undefined;
  const nested = obj?.error as Record<string, unknown> | string | undefined;
  const service = typeof obj?.service === 'string' ? obj.service : undefined;
  const errorName = typeof obj?.errorName === 'string' ? obj.errorName : undefined;
  const raw =
    (typeof obj?.details === 'string' && obj.details) ||
    (typeof obj?.message === 'string' && obj.message) ||
    (typeof nested === 'string' && nested) ||
    (typeof nested === 'object' && nested !== null && typeof nested.message === 'string' && nested.message) ||
    (typeof d === 'string' && d) ||
    undefined;
  // Providers' JSON error bodies end up as text (codex: data.message, gemini and claude: the message).
  const body = embeddedJson(raw) ?? embeddedJson(message);
  const named = service || errorName ? [service, errorName].filter(Boolean).join(': ') : undefined;
  // An error found in the answer text (copilot) or in the agent's own log (pi) is its own detail.
  const detail = body?.message ?? raw ?? named ?? (o.source === 'text' || o.source === 'silence' ? message : undefined);
  const out: AgentErrorData = { source: o.source ?? 'rpc' };
  if (o.rpcCode !== undefined) out.rpcCode = o.rpcCode;
  const fromCode = o.rpcCode !== undefined && o.rpcCode >= 400 && o.rpcCode <= 599 ? o.rpcCode : undefined;
  const fromText = /\b(?:error|status|http)\W{0,3}([45]\d\d)\b|^\s*([45]\d\d)\b/im.exec(`${message}\n${raw ?? ''}`);
  const status = fromCode ?? body?.status ?? (fromText ? Number(fromText[1] ?? fromText[2]) : undefined);
  if (status !== undefined) out.httpStatus = status;
  if (detail) out.detail = detail;
  if (service || errorName)
    Object.assign(out, { ...(service ? { service } : {}), ...(errorName ? { errorName } : {}) });
  if (o.data !== undefined) out.data = o.data;
  const shown = raw && !message.includes(raw) ? `${message}: ${raw}` : message;
  return { code: 'agent_error', message: detail && !shown.includes(detail) ? `${shown}: ${detail}` : shown, data: out };
}

/** `{"error":{"message","code"}}` (OpenAI, Gemini, Anthropic bodies) inside a text, if there is one. */
function embeddedJson(text: string | undefined): { message?: string; status?: number } | undefined {
  if (!text) return undefined;
  const i = text.indexOf('{');
  const j = text.lastIndexOf('}');
  if (i < 0 || j <= i) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text.slice(i, j + 1));
  } catch {
    return undefined;
  }
  const o = v as { error?: { message?: unknown; code?: unknown } | string; message?: unknown };
  const e = typeof o?.error === 'object' && o.error !== null ? o.error : undefined;
  const message =
    typeof e?.message === 'string'
      ? e.message
      : typeof o?.error === 'string'
        ? o.error
        : typeof o?.message === 'string'
          ? o.message
          : undefined;
  const code = typeof e?.code === 'number' && e.code >= 400 && e.code <= 599 ? e.code : undefined;
  if (message === undefined && code === undefined) return undefined;
  return { ...(message !== undefined ? { message } : {}), ...(code !== undefined ? { status: code } : {}) };
}
