/**
 * Entry of the `talaria` executable (`bin/talaria.js`, `npm start`): run, flush, exit.
 */
import { EXIT } from './exit-codes.js';

/** Exit once stdout and stderr have flushed (pipes may still hold the last lines). */
function exitAfterFlush(code: number): void {
  let pending = 2;
  const done = () => void (--pending === 0 && process.exit(code));
  process.stdout.write('', done);
  process.stderr.write('', done);
}

// A reader that went away (`| head`) is not an error worth a stack trace: stop writing, finish.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help')) {
  // Same text as main() prints, without loading the agent stack: help starts like a native tool.
  const { MAIN_HELP } = await import('./help.js');
  process.stdout.write(`${MAIN_HELP}\n`);
  exitAfterFlush(EXIT.OK);
} else if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  // Same line as main() prints; it read the package file behind the whole CLI (~0.5 s).
  const { packageVersion } = await import('./package-version.js');
  process.stdout.write(`talaria ${packageVersion()}\n`);
  exitAfterFlush(EXIT.OK);
} else {
  // `talaria run` with a `talaria serve` on this home: through the server, before the agent stack loads (issue 16).
  // A failure once the server took the prompt is not retried locally (the prompt would run twice).
  const warm =
    argv[0] === 'run'
      ? await (
          await import('./commands/run-fast.js')
        )
          .runFast(argv.slice(1))
          .catch((err: unknown) => (process.stderr.write(`talaria: internal error: ${String(err)}\n`), EXIT.INTERNAL))
      : undefined;
  if (typeof warm === 'number') exitAfterFlush(warm);
  else {
    const { main } = await import('./cli.js');
    main(argv, undefined, warm ? { serverSkipped: warm.skipped } : {}).then(exitAfterFlush, (err: unknown) => {
      process.stderr.write(`talaria: internal error: ${String(err)}\n`);
      exitAfterFlush(EXIT.INTERNAL);
    });
  }
}
