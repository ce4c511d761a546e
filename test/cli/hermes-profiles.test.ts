import { describe, it, expect, vi } from 'vitest';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoEnv, runCli, tempDir } from './helpers.js';
import { workspaceProfileName } from '../../src/providers/hermes/profile-create.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 180_000) });

/** `talaria hermes profiles …` and a workspace's own profile through `talaria run`, on the Hermes emulator. */
const HERMES_BIN_DIR = fileURLToPath(new URL('../fakes/hermes/bin', import.meta.url));
const CONFIG = 'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n';

function setup() {
  const cwd = join(tempDir('prof-ws'), 'shop');
  const hermesHome = tempDir('prof-hermes');
  writeFileSync(join(hermesHome, 'config.yaml'), CONFIG);
  mkdirSync(cwd);
  const env = {
    ...demoEnv(tempDir('prof-home')),
    PATH: [HERMES_BIN_DIR, dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: tempDir('prof-user'),
    HERMES_HOME: hermesHome,
  };
  return { cwd, env, hermesHome };
}

describe('talaria hermes profiles', () => {
  it('lists, creates (with Hermes) and refuses bad names and names in use', async () => {
    const p = setup();
    const list = await runCli(['hermes', 'profiles', '--json'], p);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { profiles: { name: string }[] }).profiles.map((x) => x.name)).toEqual([
      'default',
    ]);
    const made = await runCli(['hermes', 'profiles', 'create', 'coder', '--clone'], p);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toBe(`Created Hermes profile coder at ${join(p.hermesHome, 'profiles', 'coder')}\n`);
    expect(readFileSync(join(p.hermesHome, 'profiles', 'coder', 'config.yaml'), 'utf8')).toBe(CONFIG);
    expect(existsSync(join(p.env.HOME, '.local', 'bin', 'coder'))).toBe(false);
    const table = await runCli(['hermes', 'profiles', 'list'], p);
    expect(table.stdout.split('\n').slice(0, 3)).toEqual([
      '  PROFILE  MODEL       SEEN',
      '* default  fake-model  listed',
      '  coder    fake-model  listed',
    ]);
    const again = await runCli(['hermes', 'profiles', 'create', 'coder'], p);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/Hermes could not create profile "coder": Profile 'coder' already exists at /);
    const bad = await runCli(['hermes', 'profiles', 'create', 'test'], p);
    expect([bad.code, bad.stderr]).toEqual([2, 'talaria hermes profiles: "test" is reserved by Hermes\n']);
    const usage = await runCli(['hermes', 'profiles', 'use', 'x', '--own'], p);
    expect(usage.code).toBe(2);
  });

  it('`use --own` makes `talaria run` create the workspace profile and run in it', async () => {
    const p = setup();
    const name = workspaceProfileName(p.cwd);
    const use = await runCli(['hermes', 'profiles', 'use', '--own', '--workspace', p.cwd], p);
    expect(use.code, use.stderr).toBe(0);
    expect(use.stdout).toBe(
      `New Hermes sessions in ${p.cwd} use its own profile ${name} (created by its first Hermes session).\n`,
    );
    const run = await runCli(['run', '--json', '--no-server', '--agent', 'hermes', 'hello'], p);
    expect(run.code, run.stderr).toBe(0);
    const home = join(p.hermesHome, 'profiles', name);
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toBe(CONFIG);
    // Hermes kept the session in that profile's state.db, and Talaria's usage reads it from there.
    expect(existsSync(join(home, 'state.db'))).toBe(true);
    const usage = JSON.parse((await runCli(['usage', '--json'], p)).stdout) as {
      sessions: { profile?: string; from: string }[];
    };
    expect(usage.sessions).toEqual([expect.objectContaining({ profile: name, from: 'hermes-state-db' })]);
    const listed = JSON.parse((await runCli(['hermes', 'profiles', '--json'], p)).stdout) as {
      workspace: { own: boolean; profile: string };
    };
    expect(listed.workspace).toMatchObject({ own: true, profile: name });
    const none = await runCli(['hermes', 'profiles', 'use', '--none'], p);
    expect(none.stdout).toBe(`New Hermes sessions in ${p.cwd} use Hermes' active profile.\n`);
  });

  it('skills install goes to the profile home (the workspace own one, made first), never the workspace', async () => {
    const p = setup();
    const name = workspaceProfileName(p.cwd);
    const src = join(tempDir('prof-skill'), 'probe');
    mkdirSync(join(src, 'scripts'), { recursive: true });
    writeFileSync(join(src, 'SKILL.md'), '---\nname: probe\ndescription: d\n---\nSay PROBE.\n');
    writeFileSync(join(src, 'scripts', 'run.sh'), 'echo hi\n', { mode: 0o755 });
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x80]);
    writeFileSync(join(src, 'logo.png'), bytes);
    expect((await runCli(['hermes', 'profiles', 'use', '--own'], p)).code).toBe(0);
    const r = await runCli(['hermes', 'skills', 'install', src], p);
    expect(r.code, r.stderr).toBe(0);
    const dir = join(p.hermesHome, 'profiles', name, 'skills', 'probe');
    expect(r.stdout).toBe(`Installed skill probe into Hermes profile ${name}: ${dir}\n`);
    expect(readFileSync(join(dir, 'SKILL.md'), 'utf8')).toContain('Say PROBE.');
    expect(readFileSync(join(dir, 'scripts', 'run.sh'), 'utf8')).toBe('echo hi\n');
    // A script keeps its executable bit; a binary file stays byte for byte.
    expect(statSync(join(dir, 'scripts', 'run.sh')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(dir, 'logo.png'))).toEqual(bytes);
    expect(existsSync(join(p.cwd, 'skills'))).toBe(false);
    expect(existsSync(join(p.hermesHome, 'skills', 'probe'))).toBe(false);
    // Again: refused unless --force; a lone SKILL.md into a named profile; a missing profile.
    expect((await runCli(['hermes', 'skills', 'install', src], p)).code).toBe(2);
    expect((await runCli(['hermes', 'skills', 'install', src, '--force'], p)).code).toBe(0);
    const one = await runCli(['hermes', 'skills', 'install', join(src, 'SKILL.md'), '--profile', 'default'], p);
    expect(one.code, one.stderr).toBe(0);
    expect(existsSync(join(p.hermesHome, 'skills', 'probe', 'SKILL.md'))).toBe(true);
    const missing = await runCli(['hermes', 'skills', 'install', src, '--profile', 'nosuch'], p);
    expect([missing.code, missing.stderr]).toEqual([
      6,
      'talaria hermes skills: Hermes has no profile "nosuch" (create it: talaria hermes profiles create nosuch --clone)\n',
    ]);
  });
});
