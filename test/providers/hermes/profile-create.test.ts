import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createProfile,
  ensureProfile,
  profileNameProblem,
  workspaceProfileName,
} from '../../../src/providers/hermes/profile-create.js';
import { PROFILE_RE } from '../../../src/providers/hermes/home.js';
import { listProfiles } from '../../../src/providers/hermes/profiles.js';
import { TalariaError } from '../../../src/protocol/errors.js';
import { CONFIG, cleanup, hermesAt, isolatedEnv, script, tempDir } from '../helpers.js';

afterEach(cleanup);

function hermesHome() {
  const root = tempDir('hermes-');
  writeFileSync(join(root, 'config.yaml'), CONFIG);
  writeFileSync(join(root, '.env'), 'OPENAI_API_KEY=sk-secret-never-shown\n');
  mkdirSync(join(root, 'skills', 'mine'), { recursive: true });
  writeFileSync(join(root, 'skills', 'mine', 'SKILL.md'), '---\nname: mine\ndescription: d\n---\n');
  const ctx = isolatedEnv({ env: { HERMES_HOME: root } });
  return { root, ctx, bin: hermesAt(join(tempDir('bin-'), 'hermes')) };
}

const rejected = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(TalariaError);
  return e as TalariaError;
};

describe('workspace profile names', () => {
  it('are stable, distinct per path and valid Hermes names', () => {
    const a = workspaceProfileName('/home/me/My Project');
    expect(a).toMatch(/^talaria-my-project-[0-9a-f]{8}$/);
    expect(workspaceProfileName('/home/me/My Project/')).toBe(a);
    expect(workspaceProfileName('/other/My Project')).not.toBe(a);
    for (const p of ['/', '/x/ÄÖÜ', '/x/' + 'long-name'.repeat(20), '/x/--a--', '/x/.hidden', '/x/UPPER_case'])
      expect(profileNameProblem(workspaceProfileName(p)), p).toBeUndefined();
    expect(workspaceProfileName('/')).toMatch(/^talaria-[0-9a-f]{8}$/);
    expect(workspaceProfileName('/x/' + 'a'.repeat(200)).length).toBeLessThanOrEqual(64);
  });

  it('refuses what Hermes refuses, before running it', () => {
    for (const n of ['Bad', 'a b', '-x', '', 'x'.repeat(65), 'a/b'])
      expect(profileNameProblem(n), n).toMatch(/not a Hermes profile name/);
    for (const n of ['hermes', 'default', 'test', 'tmp', 'root', 'sudo'])
      expect(profileNameProblem(n), n).toMatch(/reserved/);
    expect(PROFILE_RE.test('talaria-x-0123abcd')).toBe(true);
  });
});

describe('createProfile (through `hermes profile create`)', () => {
  it('creates a cloned profile: its own config, .env, SOUL.md and skills, no wrapper', async () => {
    const { root, ctx, bin } = hermesHome();
    const made = await createProfile(ctx, 'work', { command: bin, clone: true, description: 'for tests' });
    const home = join(root, 'profiles', 'work');
    expect(made).toEqual({ name: 'work', home });
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toBe(CONFIG);
    expect(readFileSync(join(home, '.env'), 'utf8')).toContain('OPENAI_API_KEY');
    expect(existsSync(join(home, 'skills', 'mine', 'SKILL.md'))).toBe(true);
    expect(readFileSync(join(home, 'profile.yaml'), 'utf8')).toContain('for tests');
    // --no-alias: nothing written to ~/.local/bin.
    expect(existsSync(join(ctx.homeDir, '.local', 'bin', 'work'))).toBe(false);
    const listed = await listProfiles(ctx, { command: bin });
    expect(listed.profiles.map((p) => p.name)).toEqual(['default', 'work']);
  });

  it('says why Hermes refused (name in use, a crash, no hermes, a hang) without secrets', async () => {
    const { ctx, bin } = hermesHome();
    await createProfile(ctx, 'work', { command: bin, clone: true });
    const dup = await rejected(createProfile(ctx, 'work', { command: bin, clone: true }));
    expect(dup.code).toBe('invalid_state');
    expect(dup.message).toMatch(/^Hermes could not create profile "work": Profile 'work' already exists at /);
    const bad = await rejected(createProfile(ctx, 'Bad Name', { command: bin }));
    expect(bad.code).toBe('invalid_argument');
    const crash = script(
      join(tempDir('bin-'), 'hermes'),
      'echo "Traceback (most recent call last):" >&2; echo "OSError: disk full" >&2; exit 1',
    );
    const e = await rejected(createProfile(ctx, 'other', { command: crash }));
    expect(e.code).toBe('agent_error');
    const missing = await rejected(createProfile(ctx, 'other', { command: join(tempDir('x-'), 'nope') }));
    expect(missing.code).toBe('spawn_failed');
    const hang = script(join(tempDir('bin-'), 'hermes'), 'sleep 30');
    const slow = await rejected(createProfile(ctx, 'other', { command: hang, timeoutMs: 200 }));
    expect(slow.code).toBe('timeout');
    for (const x of [dup, bad, e, missing, slow]) expect(x.message).not.toContain('sk-secret');
  });
});

describe('ensureProfile', () => {
  it('creates once for callers at the same time, and not at all when it exists', async () => {
    const { root, ctx, bin } = hermesHome();
    // Counts the real creations: the wrapper logs each `profile create` it passes on.
    const log = join(tempDir('log-'), 'calls');
    const counting = script(join(tempDir('bin-'), 'hermes'), `echo "$*" >> "${log}"\nexec "${bin}" "$@"`);
    const all = await Promise.all(
      [1, 2, 3].map(() => ensureProfile(ctx, 'shared', { command: counting, clone: true })),
    );
    // One creation, shared: every caller gets its outcome.
    expect(new Set(all.map((r) => JSON.stringify(r)))).toEqual(new Set([JSON.stringify(all[0])]));
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(['profile create shared --clone --no-alias']);
    expect(await ensureProfile(ctx, 'shared', { command: counting })).toMatchObject({ created: false });
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1);
    // The lock file is gone and Hermes' listing never shows it.
    expect(readdirSync(join(root, 'profiles'))).toEqual(['shared']);
  });

  it('waits for another process holding the lock, then uses what it made', async () => {
    const { root, ctx, bin } = hermesHome();
    mkdirSync(join(root, 'profiles'), { recursive: true });
    const lock = join(root, 'profiles', '.late.talaria-creating');
    writeFileSync(lock, '999999\n');
    const p = ensureProfile(ctx, 'late', { command: bin, clone: true });
    // The other process finishes: its profile appears, its lock goes.
    mkdirSync(join(root, 'profiles', 'late'));
    const { rmSync } = await import('node:fs');
    rmSync(lock);
    expect(await p).toMatchObject({ created: false, home: join(root, 'profiles', 'late') });
    const stuck = join(root, 'profiles', '.stuck.talaria-creating');
    writeFileSync(stuck, '1\n');
    const e = await rejected(ensureProfile(ctx, 'stuck', { command: bin, waitMs: 150 }));
    expect(e.code).toBe('timeout');
  });
});
