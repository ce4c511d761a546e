/**
 * Entry of the `talaria` executable (`bin/talaria.js`, `npm start`): run, flush, exit.
 */
import { EXIT } from './exit-codes.js';
import { main } from './cli.js';

/** Exit once stdout and stderr have flushed (pipes may still hold the last lines). */
function exitAfterFlush(code: number): void {
  let pending = 2;
  const done = () => void (--pending === 0 && process.exit(code));
  process.stdout.write('', done);
  process.stderr.write('', done);
}

// A reader that went away (`| head`) is not an error worth a stack trace: stop writing, finish.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

main(process.argv.slice(2)).then(exitAfterFlush, (err: unknown) => {
  process.stderr.write(`talaria: internal error: ${String(err)}\n`);
  exitAfterFlush(EXIT.INTERNAL);
});
