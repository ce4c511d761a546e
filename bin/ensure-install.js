#!/usr/bin/env node
// prestart / pretest: `npm start` and `npm test` work by themselves on a fresh clone. Runs
// `npm ci` when node_modules is missing or older than the lockfile (npm writes
// node_modules/.package-lock.json at the end of every install); otherwise does nothing.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const INSTALLED = join(root, 'node_modules/.package-lock.json');
const LOCK = join(root, 'package-lock.json');
const mtime = (p) => statSync(p, { throwIfNoEntry: false })?.mtimeMs;

/**
 * A lockfile rewritten by git (checkout, stash, rebase) is newer without being different: the
 * install matches it when every package has the same version and integrity (optional packages
 * for other platforms are never installed).
 */
function sameTree() {
  try {
    const want = JSON.parse(readFileSync(LOCK, 'utf8')).packages ?? {};
    const have = JSON.parse(readFileSync(INSTALLED, 'utf8')).packages ?? {};
    for (const [path, p] of Object.entries(want)) {
      if (path === '') continue;
      const h = have[path];
      if (!h) {
        if (p.optional) continue;
        return false;
      }
      if (h.version !== p.version || h.integrity !== p.integrity) return false;
    }
    return Object.keys(have).every((path) => path in want);
  } catch {
    return false;
  }
}

function why() {
  const installed = mtime(INSTALLED);
  if (installed === undefined) return 'dependencies not installed';
  const lock = mtime(LOCK);
  if (lock === undefined || installed >= lock) return undefined;
  if (!sameTree()) return 'package-lock.json changed since the last install';
  // Same tree: remember that (as of the lockfile's time), so the next run skips the comparison.
  const t = new Date(lock);
  utimesSync(INSTALLED, t, t);
  return undefined;
}

const reason = why();
if (reason) {
  process.stderr.write(`talaria: ${reason}: running npm ci\n`);
  // Inside an npm script npm_execpath is the npm that runs us; else the one on PATH.
  const npm = process.env.npm_execpath;
  const r =
    npm && /\.[cm]?js$/.test(npm)
      ? spawnSync(process.execPath, [npm, 'ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' })
      : spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
          cwd: root,
          stdio: 'inherit',
          shell: process.platform === 'win32',
        });
  if (r.status !== 0) {
    process.stderr.write(`talaria: npm ci failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`})\n`);
    process.exit(1);
  }
}
