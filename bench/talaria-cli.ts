/**
 * The command as people feel it (issue 16, "starts like a native tool"): `talaria --help` and
 * `talaria run --agent demo` from a checkout (bin/talaria.js, which runs the build when it is
 * fresh), against `node -e 0` — the floor of any Node command. Measured in rounds: each round
 * runs the three back to back, in a rotating order, and is one sample; the figures are the
 * medians of the per-round ratios, so the machine's swings cancel within a round.
 *
 * The build must be fresh, or the figures would be tsx's: a stale dist/ is rebuilt first (and
 * said so in the notes).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ROOT } from './flood-driver.js';
import type { Sample } from './types.js';

const run = promisify(execFile);

/** Wall ms of one run of `node args` (exit 0 required). */
async function timedNode(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const t0 = performance.now();
  await run(process.execPath, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
  return performance.now() - t0;
}

export interface CliStartupOptions {
  rounds: number;
  root?: string;
}

/** Rebuilds dist/ when it is not the build of the sources; returns a note when it did. */
export async function ensureFreshBuild(root = ROOT): Promise<string | undefined> {
  const { distState } = (await import(pathToFileURL(join(root, 'bin/freshness.js')).href)) as {
    distState: (r: string) => string;
  };
  const state = distState(root);
  if (state === 'fresh') return undefined;
  await run(process.execPath, [join(root, 'bin/build.js')], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  if (distState(root) !== 'fresh') throw new Error('cli start-up: dist/ is still not fresh after a build');
  return `dist/ was ${state}: rebuilt before measuring`;
}

export async function runCliStartup(o: CliStartupOptions): Promise<{ samples: Sample[] }> {
  const root = o.root ?? ROOT;
  const note = await ensureFreshBuild(root);
  const bin = join(root, 'bin/talaria.js');
  const dir = await mkdtemp(join(tmpdir(), 'talaria-bench-cli-'));
  // The user's environment minus anything that could reach a real agent or store.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TALARIA_HOME: join(dir, 'home'),
    TALARIA_DEMO_HOME: join(dir, 'demo'),
    TALARIA_DEMO_CHUNK_DELAY_MS: '0',
    NO_COLOR: '1',
  };
  const steps: Record<'nodeMs' | 'helpMs' | 'runMs', () => Promise<number>> = {
    nodeMs: () => timedNode(['-e', '0'], dir, env),
    helpMs: () => timedNode([bin, '--help'], dir, env),
    runMs: () => timedNode([bin, 'run', '--agent', 'demo', 'hi'], dir, env),
  };
  const names = Object.keys(steps) as (keyof typeof steps)[];
  try {
    const samples: Sample[] = [];
    for (let i = 0; i < o.rounds; i++) {
      const v: Record<string, number> = {};
      for (let j = 0; j < names.length; j++) {
        const name = names[(i + j) % names.length]!;
        v[name] = await steps[name]();
      }
      v['helpRatio'] = v['helpMs']! / v['nodeMs']!;
      v['runRatio'] = v['runMs']! / v['nodeMs']!;
      samples.push(note ? { values: v, notes: [note] } : { values: v });
    }
    return { samples };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
