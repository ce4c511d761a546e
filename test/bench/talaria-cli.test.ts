/**
 * The CLI start-up case's plumbing, on a stub package tree (the real bin/ files, a dist/ whose
 * entry only exits): rounds, per-round ratios, and the fresh-build guard. Never timing.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFreshBuild, runCliStartup } from '../../bench/talaria-cli.js';
import { talariaCases } from '../../bench/talaria-cases.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const made: string[] = [];
afterAll(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

function stubTree(stale = false): string {
  const dir = mkdtempSync(join(tmpdir(), 'talaria-bench-cli-tree-'));
  made.push(dir);
  const put = (rel: string, text: string, secs: number) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
    const t = new Date(Date.UTC(2030, 0, 1, 0, 0, secs));
    utimesSync(join(dir, rel), t, t);
  };
  for (const f of ['talaria.js', 'freshness.js', 'build.js']) {
    put(`bin/${f}`, '', 0);
    copyFileSync(join(ROOT, 'bin', f), join(dir, 'bin', f));
  }
  put('package.json', '{"type":"module"}', 0);
  put('dist/cli/main.js', "if (process.argv[2] !== '--help' && process.argv[2] !== 'run') process.exit(3);", 10);
  put('dist/.build-stamp', '', 10);
  put('src/cli/main.ts', '', stale ? 20 : 0);
  return dir;
}

describe('talaria.cli', () => {
  it('one sample per round, each with its own ratios to node -e 0', async () => {
    const { samples } = await runCliStartup({ rounds: 2, root: stubTree() });
    expect(samples).toHaveLength(2);
    for (const { values: v, notes } of samples) {
      for (const k of ['nodeMs', 'helpMs', 'runMs']) expect(v[k], k).toBeGreaterThan(0);
      expect(v['helpRatio']).toBeCloseTo(v['helpMs']! / v['nodeMs']!, 9);
      expect(v['runRatio']).toBeCloseTo(v['runMs']! / v['nodeMs']!, 9);
      expect(notes).toBeUndefined();
    }
    const c = talariaCases.find((x) => x.name === 'talaria.cli')!;
    for (const m of c.metrics) expect(samples[0]!.values, m.key).toHaveProperty(m.key);
    expect(c.metrics.find((m) => m.key === 'helpRatio')?.target).toEqual({ kind: 'at-most', max: 3 });
  });

  it('a stale build is rebuilt before measuring (a failed build is an error, never a tsx figure)', async () => {
    const dir = stubTree(true);
    await expect(ensureFreshBuild(dir)).rejects.toThrow(/build\.js/);
    expect(await ensureFreshBuild(stubTree())).toBeUndefined();
  });
});
