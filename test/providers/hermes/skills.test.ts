import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { installSkill } from '../../../src/providers/hermes/skills.js';
import { profileHome } from '../../../src/providers/hermes/home.js';
import { cleanup, tempDir } from '../helpers.js';

afterEach(cleanup);

const SKILL = '---\nname: deploy\ndescription: How we deploy\n---\n\nRun `make deploy`.\n';

function profile() {
  const root = tempDir('hermes-');
  const home = profileHome(root, 'work');
  mkdirSync(home, { recursive: true });
  const own = {
    'config.yaml': 'model:\n  provider: custom\n',
    '.env': 'OPENAI_API_KEY=sk-x\n',
    'SOUL.md': 'You are kind.\n',
  };
  for (const [f, t] of Object.entries(own)) writeFileSync(join(home, f), t);
  const digest = () =>
    Object.keys(own).map((f) =>
      createHash('sha256')
        .update(readFileSync(join(home, f)))
        .digest('hex'),
    );
  return { home, digest };
}

describe('installing a skill into a Hermes profile', () => {
  it('writes <profile home>/skills/<name>/SKILL.md (and extra files) and nothing else', () => {
    const { home, digest } = profile();
    const before = digest();
    const r = installSkill({ home, name: 'deploy', skill: SKILL, files: { 'scripts/run.sh': 'make deploy\n' } });
    expect(r.dir).toBe(join(home, 'skills', 'deploy'));
    expect(readFileSync(join(home, 'skills', 'deploy', 'SKILL.md'), 'utf8')).toBe(SKILL);
    expect(readFileSync(join(home, 'skills', 'deploy', 'scripts', 'run.sh'), 'utf8')).toBe('make deploy\n');
    expect(r.warnings).toEqual([]);
    expect(digest()).toEqual(before);
    expect(readdirSync(home).sort()).toEqual(['.env', 'SOUL.md', 'config.yaml', 'skills']);
    expect(readdirSync(join(home, 'skills'))).toEqual(['deploy']);
  });

  it('refuses to replace an existing skill unless asked, then replaces it whole', () => {
    const { home } = profile();
    installSkill({ home, name: 'deploy', skill: SKILL, files: { 'old.txt': 'x' } });
    expect(() => installSkill({ home, name: 'deploy', skill: SKILL })).toThrow(/already exists/);
    const r = installSkill({ home, name: 'deploy', skill: 'plain\n', overwrite: true });
    expect(r.replaced).toBe(true);
    expect(existsSync(join(home, 'skills', 'deploy', 'old.txt'))).toBe(false);
    expect(r.warnings).toEqual(['SKILL.md has no front matter with a `name:` (Hermes lists skills by it).']);
  });

  it('rejects names and file paths that would leave the skill folder', () => {
    const { home, digest } = profile();
    const before = digest();
    expect(() => installSkill({ home, name: '../config', skill: SKILL })).toThrow(/skill name/);
    expect(() => installSkill({ home, name: 'ok', skill: SKILL, files: { '../../config.yaml': 'pwned' } })).toThrow(
      /inside the skill folder/,
    );
    expect(() => installSkill({ home, name: 'ok', skill: SKILL, files: { '/etc/x': 'pwned' } })).toThrow(
      /inside the skill folder/,
    );
    expect(digest()).toEqual(before);
    expect(existsSync(join(home, 'skills', 'ok'))).toBe(false);
  });
});
