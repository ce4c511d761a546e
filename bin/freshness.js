// Is dist/ the build of the sources next to it? Shared by bin/talaria.js (run the build or the
// sources) and bin/build.js (`--if-stale`). Plain JavaScript: it runs before anything is built.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Written by bin/build.js after a successful build; its mtime is when that build started. */
export const STAMP = 'dist/.build-stamp';
/** Inputs of the build besides src/. */
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'web/index.html', 'web/vite.config.ts', 'web/tsconfig.json'];
/** Source folders of the build: the library and CLI, and the web UI (built into dist/web). */
const SOURCES = ['src', 'web/src'];

function mtime(path) {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs;
}

function newestUnder(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    // Not join(): it normalizes each of ~400 paths, half the check's time on every start.
    const p = `${dir}/${e.name}`;
    const t = e.isDirectory() ? newestUnder(p) : (mtime(p) ?? 0);
    if (t > newest) newest = t;
  }
  return newest;
}

/**
 * 'fresh': dist/ was built, after every source last changed (or there are no sources: an
 * installed package); 'stale': built, but a source changed since; 'missing': never built.
 */
export function distState(root) {
  const src = join(root, 'src');
  if (mtime(src) === undefined) return 'fresh';
  const built = mtime(join(root, STAMP));
  if (built === undefined) return 'missing';
  let newest = 0;
  for (const d of SOURCES)
    if (mtime(join(root, d)) !== undefined) newest = Math.max(newest, newestUnder(join(root, d)));
  for (const c of CONFIGS) newest = Math.max(newest, mtime(join(root, c)) ?? 0);
  return newest <= built ? 'fresh' : 'stale';
}
