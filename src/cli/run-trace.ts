/**
 * TALARIA_RUN_TRACE=1: the phases of `talaria run` on a warm server on stderr, each as ms since
 * the process started (`trace <phase> <ms>`), to measure issue 16 where it happens. Off: a no-op.
 */
import type { CliIo } from './io.js';

export type RunTrace = (phase: string) => void;

let exitTraced = false;

export function runTrace(io: Pick<CliIo, 'stderr' | 'env'>): RunTrace {
  if (io.env.TALARIA_RUN_TRACE !== '1') return () => undefined;
  const trace: RunTrace = (phase) => void io.stderr.write(`trace ${phase} ${performance.now().toFixed(1)}\n`);
  // The last phase: what the process does after the run's code returned (flush, exit handlers).
  if (!exitTraced) {
    exitTraced = true;
    process.once('exit', () => trace('exit'));
  }
  return trace;
}
