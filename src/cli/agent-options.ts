/**
 * The agent options every agent command takes and their validation; here, light (no runtime, no
 * store), so the warm path of `talaria run` validates them with the same code as the full CLI.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { flag, str, UsageError, type OptionSpec, type Parsed } from './args.js';
import type { AgentChoice } from './runtime-types.js';

export const AGENT_OPTIONS: OptionSpec = {
  agent: { type: 'string' },
  'agent-cmd': { type: 'string' },
  'agent-url': { type: 'string' },
  profile: { type: 'string' },
  cwd: { type: 'string' },
  'setup-timeout': { type: 'string' },
  verbose: { type: 'boolean' },
};

export interface AgentArgs {
  choice: AgentChoice;
  cwd: string;
  setupTimeoutMs: number;
  verbose: boolean;
}

export function agentArgs(command: string, p: Parsed): AgentArgs {
  const choice: AgentChoice = {};
  const agent = str(p, 'agent');
  const agentCmd = str(p, 'agent-cmd');
  const agentUrl = str(p, 'agent-url');
  if ([agent, agentCmd, agentUrl].filter((x) => x !== undefined).length > 1)
    throw new UsageError(`${command}: pass one of --agent, --agent-cmd and --agent-url`);
  if (agent !== undefined) choice.agent = agent;
  if (agentCmd !== undefined) choice.agentCmd = agentCmd;
  if (agentUrl !== undefined) choice.agentUrl = agentUrl;
  const profile = str(p, 'profile');
  if (profile !== undefined) choice.profile = profile;
  const cwd = workspaceDir(command, str(p, 'cwd'));
  const t = str(p, 'setup-timeout');
  const secs = t === undefined ? 60 : Number(t);
  if (!Number.isFinite(secs) || secs <= 0)
    throw new UsageError(`${command}: --setup-timeout must be a positive number of seconds`);
  return { choice, cwd, setupTimeoutMs: Math.round(secs * 1000), verbose: flag(p, 'verbose') };
}

/** `--cwd` (default: here) as an absolute folder; a usage error when it is not one. */
export function workspaceDir(command: string, value: string | undefined): string {
  const cwd = resolve(value ?? process.cwd());
  let ok = false;
  try {
    ok = statSync(cwd).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) throw new UsageError(`${command}: --cwd ${cwd} is not a directory`);
  return cwd;
}
