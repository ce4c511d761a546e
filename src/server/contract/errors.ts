import { z } from 'zod';

/**
 * Every error the server returns, over HTTP (with its status) or on the WebSocket:
 * `{code, message, fix?}`. Codes are stable strings; messages are sentences for a person.
 */
export const ERROR_CODES = [
  'unauthorized', // no token, or a wrong or revoked one (401)
  'forbidden', // an observer tried to act (403)
  'bad_host', // the Host header is not on the allow-list (DNS rebinding) (403)
  'bad_origin', // a foreign Origin (cross-site request) (403)
  'invalid_body', // the request failed its schema (400)
  'invalid_argument', // well-formed but wrong (e.g. a path that is not a directory) (400)
  'not_found', // no such session, workspace, rule, permission request (404)
  'conflict', // already answered, already archived, a turn state that forbids it (409)
  'busy', // someone else has it: the session is open in another Talaria or in this server; try again when it is closed (409)
  'too_large', // body or frame over the limit (413)
  'context_overflow', // the conversation no longer fits the model's context: start a new session or branch (422)
  'not_ready', // the agent is not ready (its readiness gaps say why) (503)
  'agent_error', // the agent answered with an error, crashed or closed its connection (502)
  'timeout', // the agent did not answer in time (504)
  'store', // the store cannot be used (locked, damaged, read-only, full, …): the fix says what to do (503)
  'unavailable', // the server is stopping (503)
  'internal', // a bug (500)
] as const;

export const errorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof errorCode>;

export const apiError = z.object({
  code: z.string(),
  message: z.string(),
  /** What to do about it, when there is something to do. */
  fix: z.string().optional(),
  /** Extra machine-readable detail (e.g. the zod issues of an invalid body). */
  data: z.unknown().optional(),
});
export type ApiError = z.infer<typeof apiError>;

/** HTTP status for each code. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  unauthorized: 401,
  forbidden: 403,
  bad_host: 403,
  bad_origin: 403,
  invalid_body: 400,
  invalid_argument: 400,
  not_found: 404,
  conflict: 409,
  busy: 409,
  too_large: 413,
  context_overflow: 422,
  not_ready: 503,
  agent_error: 502,
  timeout: 504,
  store: 503,
  unavailable: 503,
  internal: 500,
};
