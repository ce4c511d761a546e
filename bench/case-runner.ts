/**
 * Runs one case in a fresh process (for `isolate: true` cases: memory figures need a clean heap).
 *   node --expose-gc --import tsx bench/case-runner.ts <case-name> '<BenchOptions JSON>'
 * Prints one line `BENCH-RESULT <Measurement JSON>` on stdout; anything else there is ignored.
 */
import { cases } from './cases.js';
import { RESULT_PREFIX } from './isolate.js';
import type { BenchOptions } from './types.js';

const [name, json] = process.argv.slice(2);
const c = cases.find((x) => x.name === name);
if (!c || !json) {
  process.stderr.write(`case-runner: unknown case ${name}\n`);
  process.exit(2);
}
const m = await c.run(JSON.parse(json) as BenchOptions);
process.stdout.write(RESULT_PREFIX + JSON.stringify(m) + '\n');
