/** Run a case in a fresh Node process (see case-runner.ts) and read back its Measurement. */
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { spawnAgent } from './flood-driver.js';
import type { BenchOptions, Measurement } from './types.js';

export const RESULT_PREFIX = 'BENCH-RESULT ';
const RUNNER = fileURLToPath(new URL('./case-runner.ts', import.meta.url));

export async function runIsolated(name: string, opts: BenchOptions): Promise<Measurement> {
  const child = spawnAgent(
    [process.execPath, '--expose-gc', '--import', 'tsx', RUNNER, name, JSON.stringify(opts)],
    opts.root,
  );
  child.stdin.end();
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (s: string) => (out += s));
  const [code] = (await once(child, 'exit')) as [number | null];
  const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
  if (code !== 0 || !line) throw new Error(`isolated ${name} exited ${code}: ${child.stderrTail().trim()}`);
  return JSON.parse(line.slice(RESULT_PREFIX.length)) as Measurement;
}
