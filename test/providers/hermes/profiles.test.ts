import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listProfiles, parseProfileList, scanProfiles } from '../../../src/providers/hermes/profiles.js';
import { runProgram } from '../../../src/os/run-program.js';
import { CONFIG, cleanup, hermesAt, isolatedEnv, script, tempDir } from '../helpers.js';

afterEach(cleanup);

const TABLE = [
  '',
  ' Profile          Model                        Gateway      Alias        Distribution',
  ' ───────────────    ───────────────────────────    ───────────    ───────────    ────────────────────',
  ' ◆default         fake-model                   stopped      —            —',
  '  work            anthropic/claude-opus-5      running      work         —',
  '  empty           —                            stopped      —            —',
  '',
].join('\n');

describe('Hermes profiles', () => {
  it('parses the fixed-width `hermes profile list` table', () => {
    expect(parseProfileList(TABLE)).toEqual([
      { name: 'default', active: true, model: 'fake-model', gateway: 'stopped' },
      { name: 'work', active: false, model: 'anthropic/claude-opus-5', gateway: 'running', alias: 'work' },
      { name: 'empty', active: false, gateway: 'stopped' },
    ]);
    expect(parseProfileList('No profiles found.\n')).toEqual([]);
  });

  it('scans the profiles folder (valid names, folders only)', () => {
    const root = tempDir('hermes-');
    for (const d of ['work', 'Bad Name', 'x_y-1']) mkdirSync(join(root, 'profiles', d), { recursive: true });
    writeFileSync(join(root, 'profiles', 'file'), '');
    expect(scanProfiles(root)).toEqual(['default', 'work', 'x_y-1']);
    expect(scanProfiles(join(root, 'missing'))).toEqual([]);
  });

  it('merges the CLI listing with the folder scan (real `hermes profile create`/`list`)', async () => {
    const bin = hermesAt(join(tempDir('bin-'), 'hermes'));
    const root = tempDir('hermes-');
    writeFileSync(join(root, 'config.yaml'), CONFIG);
    const ctx = isolatedEnv({ env: { HERMES_HOME: root } });
    const created = await runProgram(bin, ['profile', 'create', 'work', '--clone'], {
      parentEnv: ctx.env,
      inherit: ['HERMES_HOME'],
    });
    expect(created.stdout).toMatch(/Profile 'work' created/);
    mkdirSync(join(root, 'profiles', 'only-on-disk'), { recursive: true });
    const r = await listProfiles(ctx, { command: bin });
    expect(r.cliProblem).toBeUndefined();
    expect(r.profiles.map((p) => [p.name, p.active, p.listed, p.onDisk, p.home])).toEqual([
      ['default', true, true, true, root],
      ['only-on-disk', false, true, true, join(root, 'profiles', 'only-on-disk')],
      ['work', false, true, true, join(root, 'profiles', 'work')],
    ]);
    expect(r.profiles.find((p) => p.name === 'work')).toMatchObject({ model: 'fake-model', gateway: 'stopped' });
  });

  it('falls back to the folder scan (sticky active profile) when the CLI is missing or hangs', async () => {
    const home = tempDir('home-');
    const root = join(home, '.hermes');
    mkdirSync(join(root, 'profiles', 'work'), { recursive: true });
    writeFileSync(join(root, 'active_profile'), 'work\n');
    const ctx = isolatedEnv({ homeDir: home });
    const want = [
      ['default', false, false],
      ['work', true, false],
    ];
    const noCli = await listProfiles(ctx);
    expect(noCli.cliProblem).toBe('hermes was not found');
    expect(noCli.profiles.map((p) => [p.name, p.active, p.listed])).toEqual(want);
    const hang = script(join(tempDir('bin-'), 'hermes'), 'sleep 30');
    const r = await listProfiles(ctx, { command: hang, timeoutMs: 200 });
    expect(r.cliProblem).toBe('`hermes profile list` did not answer within 200 ms');
    expect(r.profiles.map((p) => [p.name, p.active, p.listed])).toEqual(want);
  });
});
