/**
 * The auth methods `talaria acp` lists to its editor. Talaria may have offered the agent terminal
 * auth (the Claude adapters list their login only then), but a terminal method is only of use to
 * an editor that can run one: it is listed only to an editor whose clientCapabilities say
 * `_meta["terminal-auth"]: true`, and then as a command the editor can run as is — the agent's real
 * command (not `talaria acp`'s) with the env Talaria launches the agent with (config.json's `env`).
 */
import { agentEnv } from '../../providers/launch.js';
import { authKind, terminalLaunch } from '../../providers/auth.js';
import type { Harness } from '../types.js';
import { asRecord, recordOrEmpty } from '../../os/record.js';

/** Whether an editor's clientCapabilities say it runs `_meta["terminal-auth"]` methods. */
export function editorRunsTerminalAuth(clientCapabilities: unknown): boolean {
  return asRecord(asRecord(clientCapabilities)?._meta)?.['terminal-auth'] === true;
}

export async function editorAuthMethods(
  methods: readonly unknown[],
  o: { harness: Harness; provider: string; profile?: string | undefined; terminalAuth: boolean },
): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const m of methods) {
    if (authKind(m) !== 'terminal') {
      out.push(m);
      continue;
    }
    if (!o.terminalAuth) continue;
    const launched = await terminalMethod(m, o).catch(() => undefined);
    if (launched) out.push(launched);
  }
  return out;
}

/** The method with `_meta["terminal-auth"]` naming what to run: command, args and the agent's env. */
async function terminalMethod(
  m: unknown,
  o: { harness: Harness; provider: string; profile?: string | undefined },
): Promise<unknown> {
  const launch = terminalLaunch(m);
  const provider = o.harness.registry.get(o.provider);
  if (!launch || !provider) return undefined;
  let command = launch.command;
  let args = launch.args;
  if (command === undefined) {
    // ACP `type: "terminal"`: the agent's own command plus the method's args (the editor's own
    // command is `talaria acp`, which has no sign-in of its own).
    const located = await provider.locate(o.harness.env, o.profile ? { profile: o.profile } : {});
    if (!located) return undefined;
    command = located.command;
    args = [...located.args, ...launch.args];
  }
  const env = { ...agentEnv(provider, o.harness.env), ...launch.env };
  const raw = recordOrEmpty(m);
  const meta = recordOrEmpty(raw._meta);
  const terminalAuth = {
    ...recordOrEmpty(meta['terminal-auth']),
    command,
    args,
    env,
    ...(launch.label ? { label: launch.label } : {}),
  };
  return {
    ...raw,
    ...(raw.type === 'terminal' ? { env: { ...env } } : {}),
    _meta: { ...meta, 'terminal-auth': terminalAuth },
  };
}
