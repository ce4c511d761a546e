/**
 * On-demand installs of pinned agent packages into `.cache/agents/<name>@<version>/` (git-ignored,
 * never the project's package.json). A marker file written after a successful install makes the
 * next run skip npm entirely; it also records how long the install took and how big it is.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, lstatSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CACHE_ROOT = fileURLToPath(new URL('../../../.cache/agents/', import.meta.url));
const MARKER = '.talaria-install.json';

export interface InstallInfo {
  dir: string;
  /** True when this call ran npm; false when the cache already held the install. */
  installed: boolean;
  /** Install time (of this call, or as recorded when the cache was filled). */
  ms: number;
  bytes: number;
  packages: string[];
}

export function cacheDir(name: string, version: string): string {
  return join(CACHE_ROOT, `${name}@${version}`);
}

/** Total size of a folder (symlinks not followed). */
export function dirBytes(dir: string): number {
  let total = 0;
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) {
      const p = join(d, n);
      const st = lstatSync(p);
      if (st.isDirectory()) stack.push(p);
      else total += st.size;
    }
  }
  return total;
}

function npmInstall(dir: string, packages: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const args = [
      'install',
      '--prefix',
      dir,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--loglevel',
      'error',
      ...packages,
    ];
    const child = spawn('npm', args, {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()).length > 20_000 && (err = err.slice(-10_000)));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`npm install ${packages.join(' ')} failed (${code}): ${err.slice(-2000)}`)),
    );
  });
}

/**
 * Installs `packages` (npm specs with pinned versions) into the cache folder of `name@version`
 * unless a previous install completed there. `check` is a path (relative to the folder) that must
 * exist afterwards: the agent's entry point or binary.
 */
export async function ensureInstalled(
  name: string,
  version: string,
  packages: string[],
  check: string,
): Promise<InstallInfo> {
  const dir = cacheDir(name, version);
  const marker = join(dir, MARKER);
  if (existsSync(marker) && existsSync(join(dir, check))) {
    const m = JSON.parse(readFileSync(marker, 'utf8')) as { ms: number; bytes: number };
    return { dir, installed: false, ms: m.ms, bytes: m.bytes, packages };
  }
  // A half-finished install (killed run) is thrown away rather than trusted.
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: `agent-cache-${name.replace(/[^a-z0-9-]/gi, '-')}`, private: true }) + '\n',
  );
  const t0 = performance.now();
  await npmInstall(dir, packages);
  const ms = Math.round(performance.now() - t0);
  if (!existsSync(join(dir, check))) throw new Error(`${name}@${version}: installed, but ${check} is missing`);
  const bytes = dirBytes(dir);
  writeFileSync(marker, JSON.stringify({ ms, bytes, packages, at: new Date().toISOString() }) + '\n');
  return { dir, installed: true, ms, bytes, packages };
}
