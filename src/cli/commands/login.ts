/**
 * `talaria login AGENT [METHOD]`: signs in to an agent with one of the methods it lists in
 * `initialize`. Agent-type methods go through ACP `authenticate`; terminal-type ones (ACP
 * `type: "terminal"`: the agent's own command plus `args`; or `_meta["terminal-auth"]`'s command)
 * run in a pseudo-terminal attached to this terminal. Then readiness is checked again for real
 * (the agent started, a session opened in a scratch folder) and the result printed.
 */
import { createInterface } from 'node:readline/promises';
import type { AuthMethodInfo } from '../../providers/auth.js';
import { authenticateWith, recheckSignIn, startForSignIn, terminalCommand, type SignInAgent } from '../../providers/sign-in.js';
import type { Provider, ProviderEnv } from '../../providers/types.js';
import { errorText } from '../../session/errors.js';
import { flag, parse, str, UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { sanitize } from '../render/width.js';
import type { CliContext } from './common.js';
import { timeoutOption, workspaceDir } from './doctor.js';
import { runInPty } from './login-pty.js';

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
  if (agentId === undefined) throw new UsageError('login: which agent? (talaria login AGENT [METHOD]; `talaria agents` lists them)');
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
    const say = (line: string) => io.stdout.write(`${line}\n`);
    let agent: SignInAgent;
    try {
      agent = await startForSignIn(provider, h.env, { cwd, timeoutMs, ...(profile ? { profile } : {}) });
    } catch (e) {
      io.stderr.write(`talaria: ${provider.label} could not be started: ${sanitize(errorText(e))}\n`);
      return EXIT.NOT_READY;
    }
    let result: number | undefined;
    try {
      const method = await chooseMethod(ctx, provider, agent.methods, methodId);
      if (typeof method === 'number') return method;
      if (method === undefined) {
        say(`${provider.label} lists no sign-in method; checking whether it is ready.`);
      } else if (method.kind === 'env_var') {
        throw new UsageError(`login: ${method.id} is not something to run: put ${(method.vars ?? []).join(' or ')} in agents.${JSON.stringify(provider.id)}.env of config.json`);
      } else if (method.kind === 'agent') {
        say(`Signing in to ${provider.label} with ${method.name}…`);
        try {
          await authenticateWith(agent, method.id, timeoutMs);
        } catch (e) {
          io.stderr.write(`talaria: ${provider.label} refused the sign-in with ${method.id}: ${sanitize(errorText(e))}\n`);
          result = EXIT.AGENT_ERROR;
        }
      } else {
        const run = terminalCommand(provider, h.env, agent, method.id);
        // The agent is not needed while its sign-in command runs (it may even lock what that command writes).
        await agent.client.close().catch(() => {});
        result = await runTerminalMethod(ctx, provider, run, method, cwd);
      }
    } finally {
      await agent.client.close().catch(() => {});
    }
    if (result !== undefined) return result;
    return await recheck(ctx, provider, h.env, { home: h.home, timeoutMs, ...(profile ? { profile } : {}) });
  } finally {
    await h.close();
  }
}

/** The method asked for, the only one, or the user's pick on a terminal; a number is an exit code. */
async function chooseMethod(ctx: CliContext, provider: Provider, methods: AuthMethodInfo[], asked: string | undefined): Promise<AuthMethodInfo | number | undefined> {
  const list = methods.map(
    (m) => `  ${m.id.padEnd(16)} ${m.name} (${m.kind === 'env_var' ? `set ${(m.vars ?? []).join(' or ')}` : m.kind})${m.description ? ` — ${m.description}` : ''}`,
  );
  if (asked !== undefined) {
    const m = methods.find((x) => x.id === asked);
    if (!m) throw new UsageError(`login: ${provider.label} has no sign-in method '${asked}'${methods.length ? `; it lists:\n${list.join('\n')}` : ' (it lists none)'}`);
    return m;
  }
  const runnable = methods.filter((m) => m.kind !== 'env_var');
  if (methods.length === 0) return undefined;
  if (runnable.length === 1 && methods.length === 1) return runnable[0];
  if (!ctx.io.stdin.isTTY) throw new UsageError(`login: ${provider.label} lists several sign-in methods; name one (talaria login ${provider.id} METHOD):\n${list.join('\n')}`);
  ctx.io.stdout.write(`${provider.label} offers these sign-in methods:\n${methods.map((m, i) => `${String(i + 1).padStart(3)}.${list[i]!.slice(1)}`).join('\n')}\n`);
  const rl = createInterface({ input: ctx.io.stdin, output: ctx.io.stdout as NodeJS.WritableStream, terminal: true });
  try {
    for (;;) {
      const a = (await rl.question('Which one (number or id, empty to stop)? ')).trim();
      if (a === '') return EXIT.USAGE;
      const m = methods[Number(a) - 1] ?? methods.find((x) => x.id === a);
      if (m) return m;
      ctx.io.stdout.write(`No method '${a}'.\n`);
    }
  } finally {
    rl.close();
  }
}

async function runTerminalMethod(
  ctx: CliContext,
  provider: Provider,
  run: { command: string; args: string[]; env: Record<string, string> },
  method: AuthMethodInfo,
  cwd: string,
): Promise<number | undefined> {
  const { command, args } = run;
  ctx.io.stdout.write(`Running ${provider.label}'s sign-in (${method.name}): ${[command, ...args].join(' ')}\n`);
  // Ctrl-C belongs to the sign-in command while it runs, not to Talaria.
  const off = ctx.onInterrupt(() => {});
  try {
    const r = await runInPty(command, args, { env: run.env, cwd });
    if (r.code === 0) return undefined;
    ctx.io.stderr.write(`talaria: the sign-in command ${r.signal ? `was killed by ${r.signal}` : `exited with code ${r.code}`}; ${provider.label} is not signed in.\n`);
    return EXIT.AGENT_ERROR;
  } catch (e) {
    ctx.io.stderr.write(`talaria: the sign-in command could not be started: ${sanitize((e as Error).message)}\n`);
    return EXIT.NOT_READY;
  } finally {
    off();
  }
}

/** Readiness for real after a sign-in: the agent started again and a session opened. */
async function recheck(ctx: CliContext, provider: Provider, env: ProviderEnv, o: { home: string; timeoutMs: number; profile?: string }): Promise<number> {
  const r = await recheckSignIn(provider, env, o);
  if (r.ready) {
    ctx.io.stdout.write(`${provider.label} is signed in and ready.\n`);
    return EXIT.OK;
  }
  ctx.io.stderr.write(`talaria: ${provider.label} is still not ready:\n${r.gaps.map((g) => `  ${sanitize(g.message)}\n  fix: ${sanitize(g.fix)}`).join('\n')}\n`);
  return EXIT.NOT_READY;
}
