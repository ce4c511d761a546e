/**
 * `--agent ID` / `--agent-cmd CMD` → how to start the agent under probe. Agent ids go through
 * the provider registry (built-ins, config.json agents, editor imports, the bundled demo), so a
 * provider's env lists and capability ceilings apply exactly as for a session. The quirk set
 * follows the agent either way (chosen when it answers initialize: probe/open.ts).
 * Nothing given: the bundled demo agent.
 */
import { demoAgentCommand } from '../../demo/command.js';
import { agentEnv, agentHomeVariables, loadRegistry, type ProviderEnv } from '../../providers/index.js';
import { splitCommand, UsageError } from '../args.js';
import { ProbeNotReadyError, type ProbeLaunch } from './types.js';

export interface AgentChoice {
  agent?: string;
  agentCmd?: string;
}

/** The demo's timing knobs (tests shorten its delays); nothing secret. */
const demoInherit = (env: ProviderEnv['env']): string[] =>
  Object.keys(env).filter((k) => k.startsWith('TALARIA_DEMO_'));

export async function resolveProbeLaunch(choice: AgentChoice, ctx: ProviderEnv): Promise<ProbeLaunch> {
  if (choice.agent !== undefined && choice.agentCmd !== undefined)
    throw new UsageError('probe: pass either --agent or --agent-cmd, not both');
  if (choice.agentCmd !== undefined) {
    const words = splitCommand(choice.agentCmd);
    if (words.length === 0) throw new UsageError('probe: --agent-cmd is empty');
    // A bare command gets the non-secret home variables agents read (HERMES_HOME, …): otherwise
    // the probe would quietly test the agent against a different home than the user's shell.
    return {
      label: choice.agentCmd.trim(),
      command: words[0]!,
      args: words.slice(1),
      env: {},
      inherit: [...new Set([...agentHomeVariables(), ...demoInherit(ctx.env)])],
      hookEnv: ctx,
    };
  }
  const id = choice.agent ?? 'demo';
  const { registry } = loadRegistry(ctx, { demo: demoAgentCommand() });
  const provider = registry.get(id);
  if (!provider)
    throw new UsageError(
      `probe: unknown agent '${id}' (known: ${registry
        .list()
        .map((p) => p.id)
        .join(', ')}); pass --agent-cmd "COMMAND ARGS" to probe any ACP agent`,
    );
  const located = await provider.locate(ctx);
  if (!located) throw new ProbeNotReadyError(`${provider.label} was not found. ${provider.install}`);
  return {
    label: provider.label,
    command: located.command,
    args: [...located.args],
    env: agentEnv(provider, ctx),
    hookEnv: ctx,
    inherit: [...provider.env.inherit, ...(id === 'demo' ? demoInherit(ctx.env) : [])],
    provider,
    providerId: provider.id,
  };
}
