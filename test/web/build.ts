/**
 * Makes sure dist/web holds a build of the current web/ sources before a browser test loads it.
 * Several test files may start at once: one builds under a lock directory, the others wait.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const execFileP = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const WEB_ROOT = join(ROOT, 'dist', 'web');
const SRC = join(ROOT, 'web');
const LOCK = join(ROOT, 'dist', '.web-build.lock');

function newest(dir: string): number {
  let t = 0;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const p = join(dir, name);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

function fresh(): boolean {
  const index = join(WEB_ROOT, 'index.html');
  if (!existsSync(index)) return false;
  const built = statSync(index).mtimeMs;
  const contract = join(ROOT, 'src', 'server');
  return newest(SRC) <= built && (!existsSync(contract) || newest(contract) <= built);
}

export async function ensureWebBuilt(): Promise<void> {
  if (fresh()) return;
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // Another test file is building: wait for its lock to go (a stale lock older than 2 min is taken over).
      if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > 120_000)
        rmSync(LOCK, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 200));
      if (fresh()) return;
    }
  }
  try {
    if (fresh()) return;
    // A child process: inside vitest NODE_ENV is "test", and a build made there ships React's dev
    // JSX runtime calls against the production runtime (the page dies with "jsxDEV is not a function").
    const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
    await execFileP(process.execPath, [vite, 'build', '--config', join(SRC, 'vite.config.ts'), '--logLevel', 'warn'], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production' },
    });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
