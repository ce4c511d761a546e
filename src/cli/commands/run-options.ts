/**
 * The options of `talaria run`, their validation, and when a run may go through a running
 * `talaria serve`: decided here once for both roads into the run (main.ts's warm path,
 * run-fast.ts, and the full command, run.ts). Light on purpose (no harness, no store): the warm
 * path parses with it before anything heavy is loaded.
 */
import { homedir } from 'node:os';
import { AGENT_OPTIONS, agentArgs, type AgentArgs } from '../agent-options.js';
import { APPROVE_MODES, type ApproveMode } from '../approve.js';
import { choice, flag, parse, str, UsageError, type Parsed } from '../args.js';
import type { CliIo } from '../io.js';
import { findServer, type ServerDiscovery } from '../server-discovery.js';
import { talariaHome } from '../../os/home.js';

export const RUN_OPTIONS = {
  ...AGENT_OPTIONS,
  session: { type: 'string' },
  json: { type: 'boolean' },
  ndjson: { type: 'boolean' },
  approve: { type: 'string' },
  // Work locally even when a `talaria serve` runs on this home (also TALARIA_NO_SERVER=1).
  'no-server': { type: 'boolean' },
  // Every frame of the run, in the fixture format (`talaria replay` reads it; tests compare it with replay).
  'wire-log': { type: 'string' },
} as const;

/** A `talaria run` command line, validated. */
export interface RunArgs {
  p: Parsed;
  json: boolean;
  ndjson: boolean;
  approve: ApproveMode;
  a: AgentArgs;
  session: string | undefined;
  wireLog: string | undefined;
  /** The prompt from the command line; undefined for `-` (read from stdin: only the full path reads it). */
  prompt: string | undefined;
}

/** The run's arguments, or 'help'; a UsageError says what is wrong (the full path prints it, the warm path declines). */
export function parseRun(argv: string[]): RunArgs | 'help' {
  const p = parse('run', argv, RUN_OPTIONS);
  if (flag(p, 'help')) return 'help';
  const json = flag(p, 'json');
  const ndjson = flag(p, 'ndjson');
  if (json && ndjson) throw new UsageError('run: pass either --json or --ndjson, not both');
  const approve = choice('run', 'approve', str(p, 'approve'), APPROVE_MODES, 'ask');
  const a = agentArgs('run', p);
  if (p.positionals.length === 0) throw new UsageError('run: missing PROMPT (use - to read it from stdin)');
  const fromStdin = p.positionals.length === 1 && p.positionals[0] === '-';
  const prompt = fromStdin ? undefined : p.positionals.join(' ');
  return { p, json, ndjson, approve, a, session: str(p, 'session'), wireLog: str(p, 'wire-log'), prompt };
}

/**
 * Whether the run may ask permission on this terminal. stderr is looked at first: stdin (its
 * stream not even made) is not touched when nobody could be asked anyway.
 */
export function interactiveRun(r: RunArgs, io: CliIo): boolean {
  return r.approve !== 'none' && r.prompt !== undefined && io.stderr.isTTY === true && io.stdin.isTTY === true;
}

/**
 * Flags the server cannot honour keep the run local: --ndjson and --wire-log (the local session's
 * own events and frames), a command or URL agent (the server does not start those), --approve none
 * (a deny rule the server session would not have from its start), and a policy other than ask for
 * an existing session (its server session keeps the policy it was opened with).
 */
export function serverEligible(r: RunArgs, env: NodeJS.ProcessEnv): boolean {
  const has = (k: string) => r.p.values[k] !== undefined;
  return (
    !flag(r.p, 'no-server') &&
    env.TALARIA_NO_SERVER !== '1' &&
    !r.ndjson &&
    r.wireLog === undefined &&
    !has('agent-cmd') &&
    !has('agent-url') &&
    r.approve !== 'none' &&
    (r.session === undefined || r.approve === 'ask')
  );
}

/** The server this run goes through; `{ skipped }` says why none is used; undefined when the run must stay local. */
export function serverFor(
  r: RunArgs,
  env: NodeJS.ProcessEnv,
): { server: ServerDiscovery } | { skipped: string } | undefined {
  if (!serverEligible(r, env)) return undefined;
  return findServer(talariaHome({ env, homeDir: env.HOME || homedir() }));
}
