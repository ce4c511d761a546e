/**
 * `talaria agents add ID` for a built-in agent with no registry entry of its id: its own npm package
 * from the (loopback) npm registry, at the version asked, else the one the registry pins for that
 * package, else npm's latest; the install runs as the built-in (its id, checks and env), found in
 * Talaria's folder before PATH. Without the registry a built-in still installs; a package npm does
 * not have installs nothing and says why.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmPackage, serveIndex, serveNpm, startLoopback, type Loopback } from '../providers/registry-acp/helpers.js';
import { runCli, tempDir } from './helpers.js';

let lb: Loopback;
let env: Record<string, string>;
let cwd: string;
const agentsDir = () => join(env.TALARIA_HOME!, 'agents');

interface Row {
  providerId: string;
  ready: boolean;
  source: string;
  version?: string;
  command?: { command: string; via: string };
  gaps: { code: string }[];
}
async function row(id: string, e = env): Promise<Row | undefined> {
  const r = await runCli(['agents', '--json'], { cwd, env: e });
  return (JSON.parse(r.stdout) as { agents: Row[] }).agents.find((a) => a.providerId === id);
}

beforeAll(async () => {
  lb = await startLoopback();
  const work = tempDir('npm-builtin');
  const qwen = '@qwen-code/qwen-code';
  serveNpm(lb, qwen, [
    { version: '1.0.0', ...(await npmPackage(work, lb.url, qwen, '1.0.0', { bin: 'qwen' })) },
    { version: '1.1.0', ...(await npmPackage(work, lb.url, qwen, '1.1.0', { bin: 'qwen' })) },
  ]);
  serveNpm(lb, '@kilocode/cli', [
    { version: '7.7.7', ...(await npmPackage(work, lb.url, '@kilocode/cli', '7.7.7', { bin: 'kilo' })) },
  ]);
  // The registry lists Qwen's package under another id, pinned: that pin is the version installed.
  serveIndex(lb, [
    {
      id: 'qwen-elsewhere',
      name: 'Qwen (registry)',
      version: '1.0.0',
      description: 'x',
      distribution: { npx: { package: `${qwen}@1.0.0` } },
    },
  ]);
  cwd = tempDir('cwd');
  env = {
    TALARIA_HOME: join(tempDir('home'), 'talaria'),
    TALARIA_REGISTRY_URL: `${lb.url}/registry.json`,
    npm_config_registry: `${lb.url}/`,
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_update_notifier: 'false',
    NO_COLOR: '1',
    // No qwen/kilo/gemini of the machine's.
    PATH: `${join(process.execPath, '..')}:/usr/bin:/bin`,
  };
});
afterAll(async () => {
  await lb.close();
});

describe('talaria agents add: a built-in from its npm package', { timeout: 180_000 }, () => {
  it('installs at the registry pin, runs as the built-in (found in its folder), a turn works; a version asked wins', async () => {
    expect((await row('qwen'))?.gaps.map((g) => g.code)).toContain('not_installed');
    const add = await runCli(['agents', 'add', 'qwen'], { cwd, env });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain('installed qwen 1.0.0 (npm @qwen-code/qwen-code@1.0.0)');

    const r = await row('qwen');
    expect(r).toMatchObject({ ready: true, source: 'builtin', version: '1.0.0' });
    expect(r!.command!.via).toBe('npm 1.0.0 (talaria agents add)');
    expect(r!.command!.command.startsWith(join(agentsDir(), 'qwen@1.0.0'))).toBe(true);

    const turn = await runCli(['run', '--agent', 'qwen', 'hello through npm'], { cwd, env });
    expect(turn.code, turn.stderr).toBe(0);
    expect(turn.stdout).toContain('hello through npm');

    const inst = await runCli(['agents', '--installed'], { cwd, env });
    expect(inst.stdout).toMatch(
      /qwen\s+1\.0\.0\s+npm\s+@qwen-code\/qwen-code@1\.0\.0 \(the built-in agent, from npm\)/,
    );

    const asked = await runCli(['agents', 'add', 'qwen@1.1.0'], { cwd, env });
    expect(asked.code, asked.stderr).toBe(0);
    expect((await row('qwen'))?.command?.via).toBe('npm 1.1.0 (talaria agents add)');
    const rm = await runCli(['agents', 'remove', 'qwen'], { cwd, env });
    expect(rm.code, rm.stderr).toBe(0);
    expect((await row('qwen'))?.gaps.map((g) => g.code)).toContain('not_installed');
  });

  it('without the registry a built-in still installs (npm latest); npm without the package installs nothing and says why', async () => {
    const off = {
      ...env,
      TALARIA_HOME: join(tempDir('home2'), 'talaria'),
      TALARIA_REGISTRY_URL: 'http://127.0.0.1:9/r.json',
    };
    const kilo = await runCli(['agents', 'add', 'kilo'], { cwd, env: off });
    expect(kilo.code, kilo.stderr).toBe(0);
    expect(kilo.stdout).toContain('installed kilo 7.7.7 (npm @kilocode/cli@7.7.7)');
    expect((await row('kilo', off))?.ready).toBe(true);

    const gemini = await runCli(['agents', 'add', 'gemini'], { cwd, env: off });
    expect(gemini.code).toBe(6);
    expect(gemini.stderr).toMatch(/npm has no version of @google\/gemini-cli to install/);
    expect(readdirSync(join(off.TALARIA_HOME, 'agents')).filter((d) => d.startsWith('gemini'))).toEqual([]);

    const bad = await runCli(['agents', 'add', 'kilo@latest;rm'], { cwd, env: off });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"latest;rm" is not a version of @kilocode\/cli/);
    expect(existsSync(join(off.TALARIA_HOME, 'agents', 'kilo@7.7.7'))).toBe(true);
  });
});
