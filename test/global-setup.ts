/**
 * Vitest globalSetup: the run's temporary folder (run-folder.ts), and a bundle of each script tests
 * start as processes (see test/prebuilt.ts). Each bundle is written to a temporary name and
 * renamed, so a second vitest run in the same checkout never starts a half-written file.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILT_DIR, PREBUILT_ENTRIES, REPO_DIR, bundleOf } from './prebuilt.js';
import { sweepClusters } from '../bench/pg-cluster.js';
import { makeRunFolder, runFolderMade } from './run-folder.js';

type Esbuild = typeof import('esbuild');

export default async function setup(): Promise<() => void> {
  if (runFolderMade()) return () => {};
  // PostgreSQL servers of an earlier run killed before its cleanup (Ctrl-C, a CI timeout).
  sweepClusters();
  const teardown = makeRunFolder();
  await prebuild();
  return teardown;
}

async function prebuild(): Promise<void> {
  // esbuild comes with tsx (as bin/build.js uses it); without it every script runs through tsx.
  let esbuild: Esbuild;
  try {
    esbuild = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild') as Esbuild;
  } catch {
    return;
  }
  const result = await esbuild.build({
    entryPoints: PREBUILT_ENTRIES.map((e) => join(REPO_DIR, e)),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outdir: BUILT_DIR,
    outbase: REPO_DIR,
    outExtension: { '.js': '.mjs' },
    write: false,
    logLevel: 'silent',
    plugins: [sourceUrls],
  });
  for (const out of result.outputFiles) {
    mkdirSync(dirname(out.path), { recursive: true });
    const tmp = `${out.path}.${process.pid}.tmp`;
    writeFileSync(tmp, out.contents, { mode: 0o755 });
    renameSync(tmp, out.path);
  }
  for (const e of PREBUILT_ENTRIES) if (!result.outputFiles.some((o) => o.path === bundleOf(e))) return;
  process.env.TALARIA_TEST_PREBUILT = BUILT_DIR;
}

/** Each module keeps its own import.meta.url (fixtures and siblings are found relative to the source file). */
const sourceUrls: import('esbuild').Plugin = {
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const { readFile } = await import('node:fs/promises');
      const text = await readFile(args.path, 'utf8');
      const url = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};
