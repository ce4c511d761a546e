/**
 * The options of `talaria run`, and when a run may go through a running `talaria serve`. Light
 * on purpose (no harness, no store): the warm path (run-fast.ts) parses with it before anything
 * heavy is loaded.
 */
import { AGENT_OPTIONS } from '../agent-options.js';
import { flag, type Parsed } from '../args.js';
import type { ApproveMode } from '../approve.js';

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

/**
 * Flags the server cannot honour keep the run local: --ndjson and --wire-log (the local session's
 * own events and frames), a command or URL agent (the server does not start those), --approve none
 * (a deny rule the server session would not have from its start), and a policy other than ask for
 * an existing session (its server session keeps the policy it was opened with).
 */
export function serverEligible(p: Parsed, env: NodeJS.ProcessEnv, approve: ApproveMode): boolean {
  const has = (k: string) => p.values[k] !== undefined;
  return (
    !flag(p, 'no-server') &&
    env.TALARIA_NO_SERVER !== '1' &&
    !flag(p, 'ndjson') &&
    !has('wire-log') &&
    !has('agent-cmd') &&
    !has('agent-url') &&
    approve !== 'none' &&
    (!has('session') || approve === 'ask')
  );
}
