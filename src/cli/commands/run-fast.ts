/**
 * The warm path of `talaria run` (issue 16), taken by main.ts before the full CLI is loaded: when
 * a `talaria serve` runs on this home, the run goes through it without loading the harness, the
 * store or the ACP stack (most of a cold command's start-up). It parses and decides with the
 * same code as the full command (run-options.ts); anything it is not sure about (help, bad usage,
 * a prompt on stdin, no server, a setup failure) returns undefined and the full `talaria run`
 * handles the command as before.
 */
import { processIo, type CliIo } from '../io.js';
import { parseRun, serverFor, type RunArgs } from './run-options.js';
import { runTrace } from '../run-trace.js';

/** One handler per signal group while the run lives (the run decides what a signal does). */
function onSignals(signals: NodeJS.Signals[]): (fn: (s: NodeJS.Signals) => void) => () => void {
  return (fn) => {
    for (const s of signals) process.on(s, fn);
    return () => {
      for (const s of signals) process.off(s, fn);
    };
  };
}

/**
 * The exit code when the run went through a server; otherwise `{ skipped }` when the server was
 * looked for and not used (the full path then runs locally without asking again), or undefined.
 */
export async function runFast(
  argv: string[],
  io: CliIo = processIo(),
): Promise<number | { skipped: string } | undefined> {
  const trace = runTrace(io);
  trace('start');
  let args: RunArgs | 'help';
  try {
    args = parseRun(argv);
  } catch {
    return undefined; // the full path says what is wrong
  }
  // A prompt on stdin is read by the full path: it must still be there when the server is not used.
  if (args === 'help' || args.prompt === undefined) return undefined;
  const found = serverFor(args, io.env);
  if (found === undefined || 'skipped' in found) return found;
  trace('found');
  // Loaded once a server is found: a run that goes local loads none of it twice.
  const [{ runOnServer }, { RunOutput }] = await Promise.all([import('./run-server.js'), import('./run-output.js')]);
  const out = new RunOutput(io, { json: args.json, ndjson: false, verbose: args.a.verbose });
  const ctx = { io, onInterrupt: onSignals(['SIGINT']), onTerminate: onSignals(['SIGTERM', 'SIGHUP']) };
  const code = await runOnServer(found.server, args, args.prompt, out, ctx);
  // '' on a fallback: run-server already said why (with --verbose).
  return code === 'fallback' ? { skipped: '' } : code;
}
