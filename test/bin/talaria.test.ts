/**
 * bin/: which code the `talaria` command runs (the build when it is the build of the sources
 * beside it, else the sources through tsx), the build's `--if-stale`, and the pre-script that
 * installs a fresh clone. Each runs for real in a temporary package tree whose dist/ and src/
 * entry points only say who they are; freshness is set with explicit mtimes, never waited for.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const made: string[] = [];
afterAll(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

const T0 = new Date('2030-01-01T00:00:00Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);

function write(path: string, text: string, mtime: Date): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  utimesSync(path, mtime, mtime);
}

/** A package tree: the real bin/ files, a stub build and stub sources (TypeScript, so only tsx runs them). */
function tree(o: { dist?: boolean; src?: boolean; tsx?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'talaria-bin-'));
  made.push(dir);
  for (const f of ['talaria.js', 'freshness.js', 'build.js', 'ensure-install.js']) {
    mkdirSync(join(dir, 'bin'), { recursive: true });
    copyFileSync(join(ROOT, 'bin', f), join(dir, 'bin', f));
  }
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  if (o.dist !== false) {
    write(join(dir, 'dist/cli/main.js'), "process.stdout.write('dist ' + process.argv.slice(2).join(' '));", at(10));
    write(join(dir, 'dist/.build-stamp'), '', at(10));
  }
  if (o.src !== false) {
    write(
      join(dir, 'src/cli/main.ts'),
      "const who: string = 'src';\nprocess.stdout.write(who + ' ' + process.argv.slice(2).join(' '));",
      at(0),
    );
    write(join(dir, 'src/lib/deep/x.ts'), 'export {};', at(0));
  }
  if (o.tsx !== false) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

async function talaria(dir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [join(dir, 'bin/talaria.js'), ...args], { cwd: dir });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('bin/talaria.js picks the build when it is fresh', () => {
  it('built after every source changed: the build, with the arguments', async () => {
    const dir = tree();
    expect(await talaria(dir, '--help')).toEqual({ code: 0, stdout: 'dist --help', stderr: '' });
  });

  it('a source changed after the build (however deep): the sources through tsx, no error', async () => {
    const dir = tree();
    utimesSync(join(dir, 'src/lib/deep/x.ts'), at(11), at(11));
    expect(await talaria(dir, 'run', 'x')).toEqual({ code: 0, stdout: 'src run x', stderr: '' });
  });

  it('a build config changed after the build: the sources', async () => {
    const dir = tree();
    write(join(dir, 'tsconfig.build.json'), '{}', at(11));
    expect((await talaria(dir)).stdout).toBe('src ');
  });

  it('never built (a checkout before its first build): the sources', async () => {
    const dir = tree({ dist: false });
    expect((await talaria(dir, '-h')).stdout).toBe('src -h');
  });

  it('no sources (an installed package): the build, whatever the stamps say', async () => {
    const dir = tree({ src: false, tsx: false });
    rmSync(join(dir, 'dist/.build-stamp'));
    expect((await talaria(dir, '--version')).stdout).toBe('dist --version');
  });

  it('stale build and no tsx (a production install of a checkout): the last build', async () => {
    const dir = tree({ tsx: false });
    utimesSync(join(dir, 'src/cli/main.ts'), at(11), at(11));
    expect((await talaria(dir)).stdout).toBe('dist ');
  });

  it('neither a build nor tsx: one clear line and exit 1', async () => {
    const dir = tree({ dist: false, tsx: false });
    const r = await talaria(dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'talaria: this checkout is not built and tsx is not installed: run `npm ci` (or `npm run build`)\n',
    );
  });
});

describe('bin/build.js --if-stale', () => {
  it('leaves a fresh build alone (npm ci in a built checkout costs nothing)', async () => {
    const dir = tree();
    write(join(dir, 'dist/keep.js'), 'kept', at(10));
    await run(process.execPath, [join(dir, 'bin/build.js'), '--if-stale'], { cwd: dir });
    expect(readFileSync(join(dir, 'dist/keep.js'), 'utf8')).toBe('kept');
  });

  it('rebuilds a stale one: dist/ is cleaned and tsc runs (here it fails: no tsconfig), no stamp is written', async () => {
    const dir = tree();
    utimesSync(join(dir, 'src/cli/main.ts'), at(11), at(11));
    const r = await run(process.execPath, [join(dir, 'bin/build.js'), '--if-stale'], { cwd: dir }).then(
      () => 0,
      (e: { code: number; stderr: string }) => (expect(e.stderr).toContain('build: tsc failed'), e.code),
    );
    expect(r).toBe(1);
    expect(existsSync(join(dir, 'dist/.build-stamp'))).toBe(false);
    expect(existsSync(join(dir, 'dist/cli/main.js'))).toBe(false);
  });
});

describe('bin/ensure-install.js (prestart, pretest)', () => {
  /** Runs it with a fake npm that records its arguments. */
  async function ensure(dir: string): Promise<string[] | undefined> {
    const log = join(dir, 'npm-args.json');
    writeFileSync(
      join(dir, 'fake-npm.cjs'),
      `require('node:fs').writeFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)))`,
    );
    await run(process.execPath, [join(dir, 'bin/ensure-install.js')], {
      cwd: dir,
      env: { ...process.env, npm_execpath: join(dir, 'fake-npm.cjs') },
    });
    return existsSync(log) ? (JSON.parse(readFileSync(log, 'utf8')) as string[]) : undefined;
  }

  it('a fresh clone (no node_modules): npm ci', async () => {
    const dir = tree({ tsx: false });
    write(join(dir, 'package-lock.json'), '{}', at(0));
    expect(await ensure(dir)).toEqual(['ci', '--no-audit', '--no-fund']);
  });

  const lock = (packages: Record<string, object>) =>
    JSON.stringify({ lockfileVersion: 3, packages: { '': { name: 'x' }, ...packages } });
  const A1 = { 'node_modules/a': { version: '1.0.0', integrity: 'sha512-a1' } };
  const OPTIONAL = { 'node_modules/@x/other-os': { version: '1.0.0', integrity: 'sha512-o', optional: true } };

  it('a lockfile newer than the last install, with other packages: npm ci', async () => {
    const dir = tree({ tsx: false });
    write(join(dir, 'node_modules/.package-lock.json'), lock(A1), at(0));
    write(
      join(dir, 'package-lock.json'),
      lock({ 'node_modules/a': { version: '1.0.1', integrity: 'sha512-a2' } }),
      at(5),
    );
    expect(await ensure(dir)).toEqual(['ci', '--no-audit', '--no-fund']);
    // A package removed from the lockfile is a change too.
    write(join(dir, 'package-lock.json'), lock({}), at(5));
    rmSync(join(dir, 'npm-args.json'));
    expect(await ensure(dir)).toEqual(['ci', '--no-audit', '--no-fund']);
  });

  it('a lockfile only rewritten (git checkout, stash) since the install: nothing, and remembered', async () => {
    const dir = tree({ tsx: false });
    write(join(dir, 'node_modules/.package-lock.json'), lock(A1), at(0));
    write(join(dir, 'package-lock.json'), lock({ ...A1, ...OPTIONAL }), at(5));
    expect(await ensure(dir)).toBeUndefined();
    const { statSync } = await import('node:fs');
    expect(statSync(join(dir, 'node_modules/.package-lock.json')).mtimeMs).toBe(at(5).getTime());
  });

  it('installed after the lockfile last changed: nothing', async () => {
    const dir = tree({ tsx: false });
    write(join(dir, 'package-lock.json'), '{}', at(0));
    write(join(dir, 'node_modules/.package-lock.json'), '{}', at(5));
    expect(await ensure(dir)).toBeUndefined();
  });
});
