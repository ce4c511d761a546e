/**
 * The `talaria` command: dispatch to the commands, usage errors (exit 2, one line), internal
 * errors (exit 1). No process exit here: main.ts does that, tests call main() in-process.
 */
import { UsageError } from './args.js';
import { catalogCommand } from './commands/catalog.js';
import { chatCommand } from './commands/chat.js';
import type { CliContext } from './commands/common.js';
import { replayCommand } from './commands/replay.js';
import { runCommand } from './commands/run.js';
import { EXIT } from './exit-codes.js';
import { MAIN_HELP } from './help.js';
import { processIo, type CliIo } from './io.js';
import { createHarness } from '../harness/index.js';
import { agentsCommand } from './commands/agents.js';
import { doctorCommand } from './commands/doctor.js';
import { loginCommand } from './commands/login.js';
import { sessionsCommand } from './commands/sessions.js';
import { usageCommand } from './commands/usage.js';
import { acpCommand } from './commands/acp.js';
import { cliHarnessOptions, createHarnessRuntime } from './runtime.js';
import { isStoreProblem, storeProblemLine } from './store-problem.js';
import { packageVersion } from './package-version.js';

/**
 * Signal handlers stack per group: the latest registered one gets the signal. While one is
 * registered the signal does not kill the process (the command decides what happens).
 */
function signalRegistry<A>(
  signals: readonly NodeJS.Signals[],
  arg: (s: NodeJS.Signals) => A,
): (fn: (a: A) => void) => () => void {
  const handlers: ((a: A) => void)[] = [];
  const onSignal = (s: NodeJS.Signals) => handlers[handlers.length - 1]?.(arg(s));
  return (fn) => {
    if (handlers.length === 0) for (const s of signals) process.on(s, onSignal);
    handlers.push(fn);
    return () => {
      const i = handlers.lastIndexOf(fn);
      if (i >= 0) handlers.splice(i, 1);
      if (handlers.length === 0) for (const s of signals) process.off(s, onSignal);
    };
  };
}

export async function main(
  argv: string[],
  io: CliIo = processIo(),
  o: Pick<CliContext, 'serverSkipped'> = {},
): Promise<number> {
  const ctx: CliContext = {
    ...o,
    io,
    runtime: (o) => createHarnessRuntime(io.env, createHarness, o),
    harness: (o) => createHarness(cliHarnessOptions(io.env, o)),
    version: packageVersion(),
    onInterrupt: signalRegistry(['SIGINT'], () => undefined),
    onTerminate: signalRegistry(['SIGTERM', 'SIGHUP'], (sig) => sig),
  };
  const [first, ...rest] = argv;
  try {
    if (first === undefined) return await chatCommand([], ctx);
    if (first === '--help' || first === '-h' || first === 'help') {
      io.stdout.write(`${MAIN_HELP}\n`);
      return EXIT.OK;
    }
    if (first === '--version' || first === '-v') {
      io.stdout.write(`talaria ${ctx.version}\n`);
      return EXIT.OK;
    }
    // `talaria --agent-cmd …` with options only: chat with them.
    if (first.startsWith('-')) return await chatCommand(argv, ctx);
    switch (first) {
      case 'chat':
        return await chatCommand(rest, ctx);
      case 'run':
        return await runCommand(rest, ctx);
      case 'replay':
        return await replayCommand(rest, ctx);
      case 'models':
      case 'mode':
        return await catalogCommand(first, rest, ctx);
      case 'doctor':
        return await doctorCommand(rest, ctx);
      case 'agents':
        return await agentsCommand(rest, ctx);
      case 'login':
        return await loginCommand(rest, ctx);
      case 'sessions':
        return await sessionsCommand(rest, ctx);
      case 'usage':
        return await usageCommand(rest, ctx);
      case 'probe':
        // On demand: its wire checker (ajv and the ACP schema) stays off every other command's start-up.
        return await (await import('./commands/probe.js')).probeCommand(rest, ctx);
      case 'hermes':
        return await (await import('./commands/hermes.js')).hermesCommand(rest, ctx);
      case 'serve':
        // Loaded on demand: the server's dependencies (Hono, ws) stay off every other command's start-up.
        return await (await import('./commands/serve.js')).serveCommand(rest, ctx);
      case 'acp':
        return await acpCommand(rest, ctx);
      case 'fleet':
        return await (await import('./commands/fleet.js')).fleetCommand(rest, ctx);
      case 'caps':
        return await (await import('./commands/caps.js')).capsCommand(rest, ctx);
      default:
        throw new UsageError(`unknown command '${first}' (try: talaria --help)`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`talaria: ${err.message}\n`);
      return EXIT.USAGE;
    }
    if (isStoreProblem(err)) {
      io.stderr.write(`talaria: ${storeProblemLine(err)}\n`);
      return EXIT.NOT_READY;
    }
    io.stderr.write(`talaria: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT.INTERNAL;
  }
}
