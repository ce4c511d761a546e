#!/usr/bin/env node
// `npm run build` (also on `npm pack` and, when needed, on `npm ci`): a clean tsc build into
// dist/, then the stamp bin/talaria.js checks. `--if-stale`: do nothing when dist/ is fresh.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { distState, STAMP } from './freshness.js';

const root = fileURLToPath(new URL('../', import.meta.url));
if (process.argv.includes('--if-stale') && distState(root) === 'fresh') process.exit(0);

// The stamp carries the start time: a source saved during the build makes it stale.
const started = new Date();
rmSync(join(root, 'dist'), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) {
  process.stderr.write(
    `build: tsc failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`}); dist/ is incomplete\n`,
  );
  process.exit(1);
}
// The command's entry as one module (issue 16): dist/cli/main.js with the warm path of `talaria
// run` (run-fast, run-server, the typed client) inlined, so a run through a running server loads
// one file instead of some thirty; the full CLI (cli.js) and the help stay separate modules it
// imports when needed, and packages (ws) stay in node_modules. esbuild comes with tsx (a dev
// dependency); without it (a production install) the entry stays as tsc wrote it.
let esbuild;
try {
  esbuild = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild');
} catch {
  esbuild = undefined;
}
if (esbuild) {
  const main = join(root, 'dist/cli/main.js');
  const rest = {
    name: 'talaria-rest-of-cli',
    setup(b) {
      b.onResolve({ filter: /^\.\/(cli|help)\.js$/ }, (a) =>
        a.importer === main ? { path: a.path, external: true } : undefined,
      );
    },
  };
  try {
    await esbuild.build({
      entryPoints: [main],
      outfile: main,
      allowOverwrite: true,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      plugins: [rest],
      logLevel: 'warning',
    });
  } catch (err) {
    process.stderr.write(`build: bundling dist/cli/main.js failed (${err.message})\n`);
    process.exit(1);
  }
} else
  process.stderr.write('build: esbuild is not installed (a production install): dist/cli/main.js is not bundled\n');
// The web UI (web/, React + Vite) into dist/web, which `talaria serve` serves at `/`.
// Vite is a dev dependency: a checkout has it; an installed package ships dist/web prebuilt.
let vite;
try {
  vite = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
} catch {
  vite = undefined;
}
if (vite) {
  const w = spawnSync(
    process.execPath,
    [vite, 'build', '--config', join(root, 'web', 'vite.config.ts'), '--logLevel', 'warn'],
    { cwd: root, stdio: 'inherit' },
  );
  if (w.status !== 0) {
    process.stderr.write(
      `build: the web UI build failed (${w.error?.message ?? `exit ${w.status ?? w.signal}`}); dist/web is incomplete\n`,
    );
    process.exit(1);
  }
} else process.stderr.write('build: vite is not installed (a production install): dist/web is not rebuilt\n');
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, STAMP), `${started.toISOString()}\n`);
utimesSync(join(root, STAMP), started, started);
