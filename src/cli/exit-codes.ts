/**
 * Process exit codes of `talaria`, one per outcome so scripts can branch on them.
 * Documented in `talaria run --help` and docs/ndjson.md; never renumber (scripts depend on them).
 */
export const EXIT = {
  /** The turn ended normally (`end_turn`), or the command did what it was asked. */
  OK: 0,
  /** A bug or an unexpected failure inside Talaria itself. */
  INTERNAL: 1,
  /** Bad usage: unknown option, missing argument, unreadable file, unknown session id. */
  USAGE: 2,
  /** The agent refused the prompt (`refusal`). */
  REFUSAL: 3,
  /** The agent stopped at a limit (`max_tokens`, `max_turn_requests`). */
  LIMIT: 4,
  /** The agent answered the prompt with an error, or crashed / died mid-turn. */
  AGENT_ERROR: 5,
  /** Not ready: the agent cannot be found or started, initialize or session setup failed, or Talaria's store cannot be used. */
  NOT_READY: 6,
  /** Reserved (was: a command not in the build yet); no command exits with it now. */
  UNAVAILABLE: 7,
  /** `talaria probe`: at least one check is broken. */
  PROBE_BROKEN: 8,
  /** The agent ended the turn because a permission was denied (`--approve none`, a deny rule, a "no"). */
  DENIED: 9,
  /** The turn was cancelled (Ctrl-C / SIGINT, SIGTERM, SIGHUP, or the agent answered `cancelled` to a cancel). */
  CANCELLED: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code for a finished turn's stop reason. */
export function exitCodeFor(stopReason: string): ExitCode {
  switch (stopReason) {
    case 'end_turn':
      return EXIT.OK;
    case 'refusal':
      return EXIT.REFUSAL;
    case 'max_tokens':
    case 'max_turn_requests':
      return EXIT.LIMIT;
    case 'cancelled':
      return EXIT.CANCELLED;
    case 'permission_denied':
      return EXIT.DENIED;
    case 'error':
      return EXIT.AGENT_ERROR;
    default:
      // A stop reason from a newer ACP: the turn did end.
      return EXIT.OK;
  }
}

/** The table printed by `--help` (kept next to the numbers so the two cannot drift). */
export const EXIT_CODES_HELP = [
  'Exit codes:',
  `  ${EXIT.OK}    the turn ended normally (end_turn)`,
  `  ${EXIT.INTERNAL}    internal error in Talaria`,
  `  ${EXIT.USAGE}    bad usage (unknown option, missing prompt, unknown session id)`,
  `  ${EXIT.REFUSAL}    the agent refused (refusal)`,
  `  ${EXIT.LIMIT}    the agent stopped at a limit (max_tokens, max_turn_requests)`,
  `  ${EXIT.AGENT_ERROR}    the agent answered with an error or crashed mid-turn`,
  `  ${EXIT.NOT_READY}    not ready: the agent could not start, initialize or open the session,`,
  `       or Talaria's store cannot be used (the message says how to fix it)`,
  `  ${EXIT.DENIED}    a permission was denied and the agent ended the turn (permission_denied)`,
  `  ${EXIT.CANCELLED}  cancelled (Ctrl-C / SIGINT, SIGTERM or SIGHUP)`,
].join('\n');
