/**
 * Every library error code (TalariaErrorCode) → the server's public error code (contract/errors.ts,
 * which fixes the HTTP status). A Record, so a code added to the library without an answer here
 * fails the typecheck instead of falling through to a default.
 */
import type { TalariaErrorCode } from '../harness/errors.js';
import type { ErrorCode } from './contract/index.js';

export interface HttpAnswer {
  code: ErrorCode;
  /** The fix given when the error carries none of its own. */
  fix?: string;
}

const READINESS = 'See GET /api/readiness for what the agent needs.';
const RETRY = 'Try again; if it keeps happening, see GET /api/readiness and the server log.';

export const HTTP_ANSWER: Record<TalariaErrorCode, HttpAnswer> = {
  // What the caller asked for is not there.
  session_not_found: { code: 'not_found' },
  not_found: { code: 'not_found' },
  // What the caller sent is wrong. A path outside the roots is a wrong argument (400): 403 stays
  // for refusals of who the caller is (token role, Host, Origin).
  invalid_argument: { code: 'invalid_argument' },
  outside_roots: { code: 'invalid_argument' },
  // The session's state forbids it (closed, failed until reloaded, a turn state, a capability the
  // agent lacks): 409, the caller changes the state first.
  invalid_state: { code: 'conflict' },
  unsupported: { code: 'conflict' },
  // A fleet: this host lacks the directory another host's session ran in (docs/fleet.md §2).
  workspace_missing: {
    code: 'conflict',
    fix: 'Put the project at that path on this host (clone or mount it), or continue it on a host that has it.',
  },
  session_closed: { code: 'conflict' },
  session_failed: { code: 'conflict', fix: 'Open the session again to reload it, then retry.' },
  // Someone else holds it (another Talaria process, or this server, has the session open): 409,
  // not 503: the server is fine, and the request succeeds once the holder lets go.
  session_busy: { code: 'busy', fix: 'Close the session where it is open (or let its turn finish), then try again.' },
  // Live on another host of the fleet (its lease): this server neither takes it over nor waits for it.
  session_owned_elsewhere: {
    code: 'busy',
    fix: 'Drive it on the host that runs it, or let that host close it (or go offline), then try again.',
  },
  busy: { code: 'busy', fix: 'Wait for the other operation to finish, then try again.' },
  // The agent cannot be used yet.
  spawn_failed: { code: 'not_ready', fix: READINESS },
  auth_required: { code: 'not_ready', fix: READINESS },
  not_initialized: { code: 'not_ready', fix: READINESS },
  // The agent (the server's upstream) failed: 502, as a gateway whose upstream failed.
  agent_error: { code: 'agent_error' },
  agent_crashed: { code: 'agent_error' },
  connection_closed: { code: 'agent_error' },
  // Waited too long: on the agent (504, a gateway's upstream timed out), or on a permission answer
  // (the turn waited on something outside this request and gave up, like a gateway).
  timeout: { code: 'timeout', fix: RETRY },
  permission_timeout: {
    code: 'timeout',
    fix: 'Answer permission requests while the turn waits, or add a rule (POST /api/rules).',
  },
  // Not the request's fault nor the agent's: what the conversation has become. 422, not 413 (the
  // body was fine) nor 502 (the agent did what it should).
  context_overflow: { code: 'context_overflow', fix: 'Start a new session, or branch from an earlier turn.' },
  // Cancelled by the server (a close, a stop) before it finished: try again.
  aborted: { code: 'unavailable', fix: 'Try again.' },
  // The store: each StoreError carries its own fix (move it aside, chmod, free space, wait for the
  // lock). 503: the server cannot serve this until the fix is applied; one public code for all.
  recording_failed: { code: 'store' },
  open_failed: { code: 'store' },
  migration_failed: { code: 'store' },
  schema_too_new: { code: 'store' },
  store_corrupt: { code: 'store' },
  store_read_only: { code: 'store' },
  store_permission: { code: 'store' },
  store_busy: { code: 'store' },
  store_full: { code: 'store' },
  store_io: { code: 'store' },
  // The store was closed under the request: the server is stopping.
  closed: { code: 'unavailable' },
};

/** The answer for a library code; undefined for a code of another family (a face's own, a bug here). */
export function httpAnswerOf(code: string): HttpAnswer | undefined {
  return Object.hasOwn(HTTP_ANSWER, code) ? HTTP_ANSWER[code as TalariaErrorCode] : undefined;
}
