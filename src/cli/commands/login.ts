/**
 * `talaria login AGENT [METHOD]`: signs in to an agent with one of the methods it lists in
 * `initialize`. Agent-type methods go through ACP `authenticate`; terminal-type ones (ACP
 * `type: "terminal"`: the agent's own command plus `args`; or `_meta["terminal-auth"]`'s command)
 * run in a pseudo-terminal attached to this terminal. Then readiness is checked again for real
 * (the agent started, a session opened in a scratch folder) and the result printed.
 */
import type { AuthMethodInfo } from '../../providers/auth.js';
import type { Provider } from '../../providers/types.js';
import { flag, parse, str, UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import type { CliContext } from './common.js';
import { timeoutOption } from './doctor.js';
import { workspaceDir } from '../agent-options.js';
import { askLine, methodLines, numberedMethods, pickMethod, runSignIn } from './login-flow.js';

export const LOGIN_HELP = `Usage: talaria login AGENT [METHOD] [--profile NAME] [--cwd DIR] [--timeout SECS]

Signs in to AGENT with one of the sign-in methods it lists (\`talaria doctor\` shows them when the
agent asked for a sign-in). Without METHOD: the agent's only method, else a list to choose from
(on a terminal; elsewhere METHOD is required).
  agent methods      Talaria asks the agent to sign in (ACP authenticate)
  terminal methods   the agent's sign-in command runs in this terminal (its own pseudo-terminal)
Then the agent is started again and a session opened, to check the sign-in worked.

Options:
  --profile NAME   the profile (Hermes -p NAME)
  --cwd DIR        where the agent runs (default: the current directory)
  --timeout SECS   limit of the agent's start and of the check (default 30)

Exit codes: 0 signed in and ready, 2 bad usage (unknown agent or method),
5 the agent refused the sign-in or the sign-in command failed, 6 the agent cannot be started or is still not ready.`;

const OPTIONS = { profile: { type: 'string' }, cwd: { type: 'string' }, timeout: { type: 'string' } } as const;

export async function loginCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const p = parse('login', argv, OPTIONS);
  if (flag(p, 'help')) {
    io.stdout.write(`${LOGIN_HELP}\n`);
    return EXIT.OK;
  }
  const [agentId, methodId, extra] = p.positionals;
  if (agentId === undefined)
    throw new UsageError('login: which agent? (talaria login AGENT [METHOD]; `talaria agents` lists them)');
  if (extra !== undefined) throw new UsageError(`login: unexpected argument '${extra}'`);
  const cwd = workspaceDir('login', str(p, 'cwd'));
  const timeoutMs = str(p, 'timeout') === undefined ? 30_000 : timeoutOption('login', str(p, 'timeout'));
  const h = ctx.harness();
  try {
    const provider = h.registry.get(agentId);
    if (!provider) {
      throw new UsageError(
        `login: unknown agent '${agentId}' (known: ${h.registry
          .list()
          .map((x) => x.id)
          .join(', ')})`,
      );
    }
    const profile = provider.profiles ? str(p, 'profile') : undefined;
    return await runSignIn(
      ctx,
      { provider, env: h.env, home: h.home, cwd, timeoutMs, ...(profile ? { profile } : {}) },
      {
        say: (line) => void io.stdout.write(`${line}\n`),
        fail: (line) => void io.stderr.write(`${line}\n`),
        pick: (methods) => chooseMethod(ctx, provider, methods, methodId),
      },
    );
  } finally {
    await h.close();
  }
}

/** The method asked for, the only one, or the user's pick on a terminal; a number is an exit code. */
async function chooseMethod(
  ctx: CliContext,
  provider: Provider,
  methods: AuthMethodInfo[],
  asked: string | undefined,
): Promise<AuthMethodInfo | number | undefined> {
  const list = methodLines(methods);
  if (asked !== undefined) {
    const m = methods.find((x) => x.id === asked);
    if (!m)
      throw new UsageError(
        `login: ${provider.label} has no sign-in method '${asked}'${methods.length ? `; it lists:\n${list.join('\n')}` : ' (it lists none)'}`,
      );
    return m;
  }
  const runnable = methods.filter((m) => m.kind !== 'env_var');
  if (methods.length === 0) return undefined;
  if (runnable.length === 1 && methods.length === 1) return runnable[0];
  if (!ctx.io.stdin.isTTY)
    throw new UsageError(
      `login: ${provider.label} lists several sign-in methods; name one (talaria login ${provider.id} METHOD):\n${list.join('\n')}`,
    );
  ctx.io.stdout.write(`${provider.label} offers these sign-in methods:\n${numberedMethods(methods)}\n`);
  const say = (line: string) => void ctx.io.stdout.write(`${line}\n`);
  return (
    (await pickMethod(methods, () => askLine(ctx.io, 'Which one (number or id, empty to stop)? '), say)) ?? EXIT.USAGE
  );
}
