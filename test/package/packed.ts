/**
 * `npm pack` from a clean copy of this checkout, then the tarball installed into a temporary
 * prefix, offline. What a user gets from `npm install talaria-acp`, with no network:
 *
 * - The copy is the checkout's tracked and unignored files (no dist/, no node_modules/), with
 *   node_modules linked in for the build tools; `npm pack` runs prepack, which builds.
 * - npm 11 fetches full registry metadata to resolve a bare tarball's dependencies, and the local
 *   cache holds only what `npm ci` fetched. So the prefix gets a package-lock.json: the tarball
 *   plus this repo's locked non-dev packages, the versions every test ran with, and `npm ci
 *   --offline` installs them from the cache (any miss fails with ENOTCACHED, never the network).
 * - `--ignore-scripts`: the one install script among the dependencies compiles better-sqlite3
 *   (minutes of C++). Its compiled addon is copied from this checkout's build of the same
 *   version instead; every other file is as npm installed it.
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Packed {
  /** Temporary folder holding everything (remove when done). */
  dir: string;
  tarball: string;
  /** Paths inside the tarball, relative to its package/ folder. */
  files: string[];
  /** The installing project; the package is at <prefix>/node_modules/talaria-acp. */
  prefix: string;
  /** <prefix>/node_modules/.bin/talaria */
  bin: string;
}

interface LockEntry {
  version?: string;
  dev?: boolean;
  [k: string]: unknown;
}

async function checkoutFiles(): Promise<string[]> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.split('\0').filter((f) => f && existsSync(join(ROOT, f)));
}

async function npm(args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await run('npm', args, {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    return stdout;
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(
      `npm ${args.join(' ')} failed in ${cwd}: ${err.stderr?.trim().split('\n').slice(-8).join('\n') ?? err.message}`,
    );
  }
}

export async function packAndInstall(): Promise<Packed> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'talaria-pack-')));
  const checkout = join(dir, 'checkout');
  for (const f of await checkoutFiles()) {
    mkdirSync(dirname(join(checkout, f)), { recursive: true });
    cpSync(join(ROOT, f), join(checkout, f), { dereference: false });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'), 'dir');

  const packed = JSON.parse(await npm(['pack', '--json', '--pack-destination', dir], checkout)) as {
    filename: string;
    files: { path: string }[];
  }[];
  const info = packed[0]!;
  const tarball = join(dir, info.filename);

  const prefix = join(dir, 'prefix');
  mkdirSync(prefix);
  const pkg = JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8')) as {
    version: string;
    dependencies: Record<string, string>;
    bin: Record<string, string>;
    engines?: unknown;
    license?: string;
  };
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const spec = `file:../${info.filename}`;
  const packages: Record<string, unknown> = {
    '': { name: 'talaria-pack-test', version: '0.0.0', dependencies: { 'talaria-acp': spec } },
    'node_modules/talaria-acp': {
      version: pkg.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [k, v] of Object.entries(lock.packages)) if (k !== '' && !v.dev) packages[k] = v;
  writeFileSync(
    join(prefix, 'package.json'),
    JSON.stringify(
      {
        name: 'talaria-pack-test',
        version: '0.0.0',
        private: true,
        type: 'module',
        dependencies: { 'talaria-acp': spec },
      },
      null,
      2,
    ),
  );
  writeFileSync(
    join(prefix, 'package-lock.json'),
    JSON.stringify(
      { name: 'talaria-pack-test', version: '0.0.0', lockfileVersion: 3, requires: true, packages },
      null,
      2,
    ),
  );
  await npm(['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], prefix);

  const addon = 'build/Release/better_sqlite3.node';
  const installed = join(prefix, 'node_modules/better-sqlite3');
  const version = (p: string) =>
    (JSON.parse(readFileSync(join(p, 'package.json'), 'utf8')) as { version: string }).version;
  const built = join(ROOT, 'node_modules/better-sqlite3');
  if (version(installed) !== version(built))
    throw new Error(`better-sqlite3 ${version(installed)} installed, ${version(built)} built here`);
  mkdirSync(dirname(join(installed, addon)), { recursive: true });
  copyFileSync(join(built, addon), join(installed, addon));

  return { dir, tarball, files: info.files.map((f) => f.path), prefix, bin: join(prefix, 'node_modules/.bin/talaria') };
}
