/**
 * Vitest globalSetup: bundle the scripts tests start as processes (see test/prebuilt.ts). Each
 * bundle is written to a temporary name and renamed, so a second vitest run in the same checkout
 * never starts a half-written file.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILT_DIR, PREBUILT_ENTRIES, REPO_DIR, bundleOf } from './prebuilt.js';
import { sweepClusters } from '../bench/pg-cluster.js';
import { pidAlive } from '../src/os/proc-scan.js';

type Esbuild = typeof import('esbuild');

export default async function setup(): Promise<() => void> {
  // Vitest runs this once for the run and once per project, in one process: the first does the work.
  if (process.env[RUN_TMP_VAR] !== undefined && process.env[RUN_TMP_VAR] === process.env.TMPDIR) return () => {};
  // PostgreSQL servers of an earlier run killed before its cleanup (Ctrl-C, a CI timeout).
  sweepClusters();
  // Every temporary folder of this run (tests', their children's, Chromium's) goes under one folder
  // removed at the end: files that forgot their cleanup left ~480 folders in /tmp per run.
  // A run killed before its teardown (Ctrl-C, a CI timeout) leaves its folder: the next run removes it.
  sweepRunFolders();
  const runTmp = mkdtempSync(join(tmpdir(), RUN_PREFIX));
  writeFileSync(join(runTmp, OWNER_FILE), String(process.pid));
  // One level only: Chromium's profile socket must fit a unix socket path (108 bytes).
  process.env.TMPDIR = process.env[RUN_TMP_VAR] = runTmp;
  const teardown = (): void => {
    try {
      // Retried: a worker's Chromium, killed as its process exits, may still be writing its profile.
      rmSync(runTmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch {
      mkdirSync(runTmp, { recursive: true });
      writeFileSync(join(runTmp, OWNER_FILE), String(process.pid)); // the next run removes it
    }
  };
  await prebuild();
  return teardown;
}

const RUN_PREFIX = 'talaria-tests-';
const RUN_TMP_VAR = 'TALARIA_TEST_RUN_TMP';
const OWNER_FILE = '.owner-pid';

function sweepRunFolders(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(RUN_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    let pid: number;
    try {
      pid = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue; // being made right now, or not ours
    }
    if (Number.isInteger(pid) && pid > 0 && !pidAlive(pid)) rmSync(dir, { recursive: true, force: true });
  }
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
