/**
 * The package as users get it: packed from a clean checkout, installed into a temporary prefix
 * (see packed.ts), then its command and the README's library examples run from there, with no
 * TypeScript loader anywhere in reach. Slow (a full build), so one pack for the whole file.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packAndInstall, ROOT, type Packed } from './packed.js';
import { readmeExamples } from '../docs/readme-examples.js';

const run = promisify(execFile);
let p: Packed;

beforeAll(async () => {
  p = await packAndInstall();
}, 900_000);

afterAll(() => {
  if (p) rmSync(p.dir, { recursive: true, force: true });
});

/** Runs `file args` in `cwd` with an isolated home and demo store; never throws on exit codes. */
async function exec(
  file: string,
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(p.dir, 'user'),
    TALARIA_HOME: join(p.dir, 'talaria-home'),
    TALARIA_DEMO_HOME: join(p.dir, 'demo-home'),
    TALARIA_DEMO_CHUNK_DELAY_MS: '0',
    NO_COLOR: '1',
  };
  try {
    const r = await run(file, args, { cwd, env, timeout: 120_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string; message: string };
    if (typeof err.code !== 'number') throw e;
    return { code: err.code, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

function workspace(name: string): string {
  const d = join(p.dir, 'ws', name);
  mkdirSync(d, { recursive: true });
  return d;
}

describe('npm pack → install → use', { timeout: 180_000 }, () => {
  it('the tarball holds the build, its types, the command and README; no sources, tests or maps', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string; import: string } | string>;
    };
    const targets = Object.values(pkg.exports)
      .flatMap((t) => (typeof t === 'string' ? [t] : [t.types, t.import]))
      .map((t) => t.replace(/^\.\//, ''));
    for (const f of [
      ...targets,
      'dist/cli/main.js',
      'dist/demo/main.js',
      'bin/talaria.js',
      'bin/freshness.js',
      'README.md',
    ])
      expect(p.files, f).toContain(f);
    expect(
      p.files.filter(
        (f) => /^(src|test|bench)\//.test(f) || f.endsWith('.map') || (f.endsWith('.ts') && !f.endsWith('.d.ts')),
      ),
    ).toEqual([]);
  });

  it('no TypeScript loader is reachable from the installed package', async () => {
    const probe = "try { import.meta.resolve('tsx'); console.log('found') } catch { console.log('absent') }";
    const r = await exec(
      process.execPath,
      ['--input-type=module', '-e', probe],
      join(p.prefix, 'node_modules/talaria-acp'),
    );
    expect(r.stdout.trim()).toBe('absent');
  });

  it('talaria --help and --version run from the build', async () => {
    const help = await exec(p.bin, ['--help'], workspace('help'));
    expect(help.stderr).toBe('');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: talaria [COMMAND] [OPTIONS]');
    const version = await exec(p.bin, ['--version'], workspace('help'));
    expect(version.stdout.trim()).toBe(
      `talaria ${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}`,
    );
  });

  it('talaria run --agent demo: one turn with the bundled demo agent, recorded', async () => {
    const cwd = workspace('run');
    const r = await exec(p.bin, ['run', '--agent', 'demo', '--json', 'hello from the package'], cwd);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { stopReason: string; text: string; sessionId: string };
    expect(result.stopReason).toBe('end_turn');
    expect(result.text).toContain('hello from the package');
    const listed = await exec(p.bin, ['sessions', 'list', '--json'], cwd);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(result.sessionId);
  });

  it('both README library examples run as written against the installed package', async () => {
    const { client, harness } = readmeExamples();
    const cwd = p.prefix; // a user's project: talaria-acp in its node_modules
    writeFileSync(join(cwd, 'client-example.mjs'), client);
    writeFileSync(join(cwd, 'harness-example.mjs'), harness);
    const a = await exec(process.execPath, ['client-example.mjs'], cwd);
    expect(a.stderr).toBe('');
    expect(a.stdout.trim()).toBe('end_turn true');
    const b = await exec(process.execPath, ['harness-example.mjs'], cwd);
    expect(b.stderr).toBe('');
    expect(b.stdout.trim()).toBe('end_turn true');
  });

  it('both README examples typecheck against the installed types (strict, no skipLibCheck)', async () => {
    const { client, harness } = readmeExamples();
    const cwd = p.prefix;
    writeFileSync(join(cwd, 'client-example.mts'), client);
    writeFileSync(join(cwd, 'harness-example.mts'), harness);
    const options = {
      strict: true,
      noEmit: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      types: ['node'],
      skipLibCheck: false,
    };
    writeFileSync(
      join(cwd, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: options, files: ['client-example.mts', 'harness-example.mts'] }),
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const r = await exec(process.execPath, [tsc, '-p', join(cwd, 'tsconfig.json')], cwd);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
