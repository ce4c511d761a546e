/**
 * `npm run test:agents [-- NAMES] [--by id|command] [--keep] [--jobs N]`: the offline compatibility
 * matrix of real ACP agents, each started by Talaria's built-in id and by its own command line.
 * `--jobs N` (default 2): agents run N at a time — each has its own fake model, workspace, HOME and
 * Talaria home, and most of a row is waiting on the agent, so two at a time nearly halves the wall time.
 * Prints a table and writes .cache/agents/matrix.json; exits 1 when a cell is broken.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE_ROOT } from '../profiles/install.js';
import { findProfiles } from '../profiles/index.js';
import { runAgent } from './agent-run.js';
import { formatTable } from './report.js';
import type { AgentResult } from './types.js';

const argv = process.argv.slice(2);
const byAt = argv.indexOf('--by');
const by = byAt >= 0 ? argv[byAt + 1] : undefined;
if (by !== undefined && by !== 'id' && by !== 'command') throw new Error(`--by must be id or command (got ${by})`);
const jobsAt = argv.indexOf('--jobs');
const jobs = jobsAt >= 0 ? Number(argv[jobsAt + 1]) : 2;
if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`--jobs must be a whole number ≥ 1 (got ${argv[jobsAt + 1]})`);
const names = argv.filter(
  (a, i) => !a.startsWith('-') && !(byAt >= 0 && i === byAt + 1) && !(jobsAt >= 0 && i === jobsAt + 1),
);
const keep = argv.includes('--keep');
// --via-proxy: every row through `talaria acp` (row.ts reads this before any row is set up).
const viaProxy = argv.includes('--via-proxy');
if (viaProxy) process.env.MATRIX_VIA_PROXY = '1';
const profiles = findProfiles(names);
const logRoot = join(CACHE_ROOT, 'runs');
mkdirSync(logRoot, { recursive: true });
const t0 = performance.now();
const perAgent: AgentResult[][] = [];
let next = 0;
const worker = async () => {
  for (let i = next++; i < profiles.length; i = next++) {
    const p = profiles[i]!;
    const t = performance.now();
    perAgent[i] = await runAgent(p, {
      ...(by ? { rows: [by] } : {}),
      logRoot,
      stallMs: Number(process.env.MATRIX_STALL_MS ?? 60_000),
      hangStallMs: Number(process.env.MATRIX_HANG_STALL_MS ?? 15_000),
      keepWorkspace: keep,
      progress: (l) => process.stderr.write(`  · ${l}\n`),
    });
    process.stderr.write(`${p.name}: ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  }
};
await Promise.all(Array.from({ length: Math.min(jobs, profiles.length) }, worker));
// The table and the JSON keep the order the agents were named in, whichever finished first.
const results = perAgent.flat();
const json = {
  ...(viaProxy ? { via: 'talaria acp' } : {}),
  generatedAt: new Date().toISOString(),
  node: process.version,
  totalMs: Math.round(performance.now() - t0),
  agents: results,
};
writeFileSync(join(CACHE_ROOT, viaProxy ? 'matrix-proxy.json' : 'matrix.json'), JSON.stringify(json, null, 2) + '\n');
process.stdout.write(formatTable(results) + '\n');
process.stdout.write(JSON.stringify(json) + '\n');
const broken = results.some((r) => 'error' in r.install || Object.values(r.cells).some((c) => c?.status === 'broken'));
// Agents leave grandchildren and sockets behind (claude's own CLI, codex's MCP helpers): do not wait on them.
process.exit(broken ? 1 : 0);
