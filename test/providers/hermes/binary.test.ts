import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findHermes, hermesLocations } from '../../../src/providers/hermes/binary.js';
import { hermesProvider } from '../../../src/providers/hermes/provider.js';
import { cleanup, hermesAt, isolatedEnv, script, tempDir } from '../helpers.js';

afterEach(cleanup);

describe('Hermes binary discovery', () => {
  it('searches HERMES_BIN, then PATH, then the per-user and root venvs', () => {
    const home = tempDir('home-');
    const userVenv = hermesAt(join(home, '.hermes', 'hermes-agent', 'venv', 'bin', 'hermes'));
    const ctx = isolatedEnv({ homeDir: home });
    expect(findHermes(ctx).found).toEqual({ command: userVenv, via: userVenv });

    const bin = tempDir('bin-');
    const onPath = hermesAt(join(bin, 'hermes'));
    const withPath = isolatedEnv({ homeDir: home, env: { PATH: `${bin}:/usr/bin:/bin` } });
    expect(findHermes(withPath).found).toEqual({ command: onPath, via: 'PATH' });

    const explicit = hermesAt(join(tempDir('x-'), 'my-hermes'));
    expect(
      findHermes(isolatedEnv({ homeDir: home, env: { PATH: `${bin}:/usr/bin:/bin`, HERMES_BIN: explicit } })).found,
    ).toEqual({ command: explicit, via: 'HERMES_BIN' });
  });

  it('reports a wrong HERMES_BIN instead of silently using another Hermes', () => {
    const bin = tempDir('bin-');
    hermesAt(join(bin, 'hermes'));
    const r = findHermes(isolatedEnv({ env: { PATH: bin, HERMES_BIN: '/nowhere/hermes' } }));
    expect(r.found).toBeUndefined();
    expect(r.badBin).toBe('/nowhere/hermes');
  });

  it('skips files that are not executable and lists every place it looked', () => {
    const home = tempDir('home-');
    script(join(home, '.hermes', 'hermes-agent', 'venv', 'bin', 'hermes'), 'exit 0');
    chmodSync(join(home, '.hermes', 'hermes-agent', 'venv', 'bin', 'hermes'), 0o644);
    const r = findHermes(isolatedEnv({ homeDir: home, env: { PATH: tempDir('empty-') } }));
    expect(r.found).toBeUndefined();
    expect(r.tried).toEqual([
      'PATH',
      join(home, '.hermes', 'hermes-agent', 'venv', 'bin', 'hermes'),
      '/usr/local/lib/hermes-agent/venv/bin/hermes',
    ]);
  });

  it('knows the Windows locations', () => {
    const ctx = {
      env: { LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local', HERMES_HOME: 'D:\\hermes' },
      homeDir: 'C:\\Users\\me',
      platform: 'win32' as const,
    };
    expect(hermesLocations(ctx)).toEqual([
      'C:\\Users\\me\\AppData\\Local\\hermes\\venv\\Scripts\\hermes.exe',
      'D:\\hermes\\venv\\Scripts\\hermes.exe',
    ]);
  });

  it('locates the command with the profile flag and --accept-hooks', async () => {
    const bin = tempDir('bin-');
    const h = hermesAt(join(bin, 'hermes'));
    const ctx = isolatedEnv({ env: { PATH: bin } });
    expect(await hermesProvider.locate(ctx)).toEqual({ command: h, args: ['acp', '--accept-hooks'], via: 'PATH' });
    expect(await hermesProvider.locate(ctx, { profile: 'work' })).toEqual({
      command: h,
      args: ['-p', 'work', 'acp', '--accept-hooks'],
      via: 'PATH',
    });
    expect(await hermesProvider.locate(ctx, { profile: 'default' })).toMatchObject({ args: ['acp', '--accept-hooks'] });
  });
});
