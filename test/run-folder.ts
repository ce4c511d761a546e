/**
 * The test run's own temporary folder and its check on the user's Talaria home (used by
 * global-setup.ts). Everything the suite, its children and Chromium write to temp goes under one
 * folder (TMPDIR), removed at the end: files that forgot their cleanup left ~480 folders in /tmp
 * per run. A run killed before its teardown (Ctrl-C, a CI timeout) leaves its folder with its
 * owner's pid, and the next run removes it.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimFolder, orphanedFolders } from '../bench/owned-folders.js';
import { talariaHome } from '../src/os/home.js';
import { openStore } from '../src/store/index.js';

const RUN_PREFIX = 'talaria-tests-';
const RUN_TMP_VAR = 'TALARIA_TEST_RUN_TMP';

/** Vitest runs globalSetup once for the run and once per project, in one process: the first does the work. */
export function runFolderMade(): boolean {
  return process.env[RUN_TMP_VAR] !== undefined && process.env[RUN_TMP_VAR] === process.env.TMPDIR;
}

/** Makes the run's folder, points TMPDIR at it, and returns the teardown. */
export function makeRunFolder(): () => void {
  for (const dir of orphanedFolders(tmpdir(), new RegExp(`^${RUN_PREFIX}`)))
    rmSync(dir, { recursive: true, force: true });
  const userHome = talariaHome();
  const runTmp = mkdtempSync(join(tmpdir(), RUN_PREFIX));
  claimFolder(runTmp);
  // One level only: Chromium's profile socket must fit a unix socket path (108 bytes).
  process.env.TMPDIR = process.env[RUN_TMP_VAR] = runTmp;
  return () => {
    try {
      // Retried: a worker's Chromium, killed as its process exits, may still be writing its profile.
      rmSync(runTmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch {
      mkdirSync(runTmp, { recursive: true });
      claimFolder(runTmp); // the next run removes it
    }
    const n = sessionsUnder(userHome, runTmp);
    if (n === 0) return;
    process.exitCode = 1; // vitest reports an error thrown here, yet exits 0 for it
    throw new Error(
      `the suite recorded ${n} session(s) of its own (cwd under ${runTmp}) in the user's store ${userHome}: ` +
        'a Talaria started by a test had no TALARIA_HOME of its own (an agent gets none from the Talaria that runs it)',
    );
  };
}

/** Sessions whose folder is under `dir` in the store of `home` (opened read-only: a missing one is empty). */
function sessionsUnder(home: string, dir: string): number {
  const store = openStore({ home, readOnly: true });
  try {
    return store.sessions.list({ includeArchived: true }).filter((s) => s.cwd.startsWith(dir + '/')).length;
  } finally {
    store.close();
  }
}
