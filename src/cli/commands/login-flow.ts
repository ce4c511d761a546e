/**
 * The steps of one sign-in in the CLI, shared by `talaria login` and the chat (its choice when
 * the agent answers auth_required, and `/login`): start the agent offering terminal auth, let the
 * caller pick a method, run it (agent methods via `authenticate`; terminal ones in a pty attached
 * to the user's terminal), then check readiness for real. Only what the person sees differs: the
 * caller's `SignInUi` says the lines, asks for the method and hands its terminal over.
 */
import { createInterface } from 'node:readline/promises';
import type { AuthMethodInfo } from '../../providers/auth.js';
import {
  authenticateWith,
  missingSignInTool,
  recheckSignIn,
  startForSignIn,
  terminalCommand,
  type SignInAgent,
} from '../../providers/sign-in.js';
import type { Provider, ProviderEnv } from '../../providers/types.js';
import { errorText } from '../../session/errors.js';
import { UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { sanitize } from '../render/width.js';
import type { CliContext } from './common.js';
import { runInPty } from './login-pty.js';

export interface SignInUi {
  say(line: string): void;
  fail(line: string): void;
  /** The method to run among the agent's: one, none listed (undefined), or an exit code (the person stopped). */
  pick(methods: AuthMethodInfo[]): Promise<AuthMethodInfo | number | undefined>;
  /** Before a terminal method runs: the caller lets go of the terminal; the function returned takes it back. */
  handOver?(): () => void;
}

export interface SignInTarget {
  provider: Provider;
  env: ProviderEnv;
  home: string;
  cwd: string;
  timeoutMs: number;
  profile?: string;
}

/** One line per method: id, name, kind (and what to set for env_var methods). */
export function methodLines(methods: readonly AuthMethodInfo[]): string[] {
  return methods.map(
    (m) =>
      `  ${m.id.padEnd(16)} ${m.name} (${m.kind === 'env_var' ? `set ${(m.vars ?? []).join(' or ')}` : m.kind})${m.description ? ` — ${m.description}` : ''}`,
  );
}

/** The list numbered from 1, as the choice shows it. */
export function numberedMethods(methods: readonly AuthMethodInfo[]): string {
  return methodLines(methods)
    .map((l, i) => `${String(i + 1).padStart(3)}.${l.slice(1)}`)
    .join('\n');
}

/** Signs in to `t.provider` with the method `ui.pick` returns; the exit code (OK: signed in and ready). UsageError: a method that cannot be run. */
export async function runSignIn(ctx: CliContext, t: SignInTarget, ui: SignInUi): Promise<number> {
  const { provider } = t;
  const profile = t.profile ? { profile: t.profile } : {};
  let agent: SignInAgent;
  try {
    agent = await startForSignIn(provider, t.env, { cwd: t.cwd, timeoutMs: t.timeoutMs, ...profile });
  } catch (e) {
    ui.fail(`talaria: ${provider.label} could not be started: ${sanitize(errorText(e))}`);
    return EXIT.NOT_READY;
  }
  let result: number | undefined;
  try {
    const method = await ui.pick(agent.methods);
    if (typeof method === 'number') return method;
    if (method === undefined) {
      ui.say(`${provider.label} lists no sign-in method; checking whether it is ready.`);
    } else if (method.kind === 'env_var') {
      throw new UsageError(
        `login: ${method.id} is not something to run: put ${(method.vars ?? []).join(' or ')} in agents.${JSON.stringify(provider.id)}.env of config.json`,
      );
    } else if (method.kind === 'agent') {
      ui.say(`Signing in to ${provider.label} with ${method.name}…`);
      try {
        await authenticateWith(agent, method.id, t.timeoutMs);
      } catch (e) {
        ui.fail(`talaria: ${provider.label} refused the sign-in with ${method.id}: ${sanitize(errorText(e))}`);
        result = EXIT.AGENT_ERROR;
      }
    } else {
      const run = terminalCommand(provider, t.env, agent, method.id);
      const missing = missingSignInTool(run.command, t.env);
      if (missing) {
        ui.fail(`talaria: ${missing.message}\n  fix: ${missing.fix}`);
        return EXIT.NOT_READY;
      }
      // The agent is not needed while its sign-in command runs (it may even lock what that command writes).
      await agent.client.close().catch(() => {});
      result = await runTerminalMethod(ctx, t, ui, run, method);
    }
  } finally {
    await agent.client.close().catch(() => {});
  }
  if (result !== undefined) return result;
  return await recheck(t, ui);
}

async function runTerminalMethod(
  ctx: CliContext,
  t: SignInTarget,
  ui: SignInUi,
  run: { command: string; args: string[]; env: Record<string, string> },
  method: AuthMethodInfo,
): Promise<number | undefined> {
  const { command, args } = run;
  ui.say(`Running ${t.provider.label}'s sign-in (${method.name}): ${[command, ...args].join(' ')}`);
  // Ctrl-C belongs to the sign-in command while it runs, not to Talaria.
  const off = ctx.onInterrupt(() => {});
  const takeBack = ui.handOver?.();
  try {
    const r = await runInPty(command, args, { env: run.env, cwd: t.cwd });
    takeBack?.();
    if (r.code === 0) return undefined;
    ui.fail(
      `talaria: the sign-in command ${r.signal ? `was killed by ${r.signal}` : `exited with code ${r.code}`}; ${t.provider.label} is not signed in.`,
    );
    return EXIT.AGENT_ERROR;
  } catch (e) {
    takeBack?.();
    ui.fail(`talaria: the sign-in command could not be started: ${sanitize((e as Error).message)}`);
    return EXIT.NOT_READY;
  } finally {
    off();
  }
}

/** Readiness for real after a sign-in: the agent started again and a session opened. */
async function recheck(t: SignInTarget, ui: SignInUi): Promise<number> {
  const r = await recheckSignIn(t.provider, t.env, {
    home: t.home,
    timeoutMs: t.timeoutMs,
    ...(t.profile ? { profile: t.profile } : {}),
  });
  if (r.ready) {
    ui.say(`${t.provider.label} is signed in and ready.`);
    return EXIT.OK;
  }
  ui.fail(
    `talaria: ${t.provider.label} is still not ready:\n${r.gaps.map((g) => `  ${sanitize(g.message)}\n  fix: ${sanitize(g.fix)}`).join('\n')}`,
  );
  return EXIT.NOT_READY;
}

/** Asks until an answer names a method; undefined when the answer is empty or the question was stopped. */
export async function pickMethod(
  methods: readonly AuthMethodInfo[],
  ask: () => Promise<string | undefined>,
  say: (line: string) => void,
): Promise<AuthMethodInfo | undefined> {
  for (;;) {
    const a = (await ask())?.trim();
    if (!a) return undefined;
    const m = methods[Number(a) - 1] ?? methods.find((x) => x.id === a);
    if (m) return m;
    say(`No method '${a}'.`);
  }
}

/**
 * One question on the terminal; undefined when Ctrl-C or Ctrl-D stops it. Its readline is
 * closed before returning, so the terminal is free for a pty or another reader.
 */
export async function askLine(io: CliIo, question: string): Promise<string | undefined> {
  const rl = createInterface({ input: io.stdin, output: io.stdout as NodeJS.WritableStream, terminal: true });
  const stop = new AbortController();
  rl.once('SIGINT', () => stop.abort());
  rl.once('close', () => stop.abort());
  try {
    return await rl.question(question, { signal: stop.signal });
  } catch (e) {
    if (!stop.signal.aborted) throw e;
    io.stdout.write('\n');
    return undefined;
  } finally {
    rl.close();
  }
}
