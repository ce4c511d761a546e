/**
 * The test run's own temporary folder and its check on the user's Talaria home (used by
 * global-setup.ts). Everything the suite, its children and Chromium write to temp goes under one
 * folder (TMPDIR), removed at the end: files that forgot their cleanup left ~480 folders in /tmp
 * per run. A run killed before its teardown (Ctrl-C, a CI timeout) leaves its folder with its
 * owner's pid, and the next run removes it.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { talariaHome } from '../src/os/home.js';
import { pidAlive } from '../src/os/proc-scan.js';

const RUN_PREFIX = 'talaria-tests-';
const RUN_TMP_VAR = 'TALARIA_TEST_RUN_TMP';
const OWNER_FILE = '.owner-pid';

/** Vitest runs globalSetup once for the run and once per project, in one process: the first does the work. */
export function runFolderMade(): boolean {
  return process.env[RUN_TMP_VAR] !== undefined && process.env[RUN_TMP_VAR] === process.env.TMPDIR;
}

/** Makes the run's folder, points TMPDIR at it, and returns the teardown. */
export function makeRunFolder(): () => void {
  sweepRunFolders();
  const userHome = talariaHome();
  const runTmp = mkdtempSync(join(tmpdir(), RUN_PREFIX));
  writeFileSync(join(runTmp, OWNER_FILE), String(process.pid));
  // One level only: Chromium's profile socket must fit a unix socket path (108 bytes).
  process.env.TMPDIR = process.env[RUN_TMP_VAR] = runTmp;
  return () => {
    try {
      // Retried: a worker's Chromium, killed as its process exits, may still be writing its profile.
      rmSync(runTmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch {
      mkdirSync(runTmp, { recursive: true });
      writeFileSync(join(runTmp, OWNER_FILE), String(process.pid)); // the next run removes it
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

/** Sessions whose folder is under `dir` in the SQLite store of `home` (read-only; 0 when there is none). */
function sessionsUnder(home: string, dir: string): number {
  const file = join(home, 'talaria.db');
  if (!existsSync(file)) return 0;
  type Db = { prepare(sql: string): { get(...a: unknown[]): unknown }; close(): void };
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (f: string, o: object) => Db;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare('SELECT count(*) AS n FROM sessions WHERE substr(cwd, 1, ?) = ?')
      .get(dir.length + 1, dir + '/');
    return (row as { n: number }).n;
  } catch {
    return 0; // not a store this version can read
  } finally {
    db.close();
  }
}
