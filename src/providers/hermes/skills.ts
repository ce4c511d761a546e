/**
 * Installing a skill into a Hermes profile. Hermes reads skills only from $HERMES_HOME/skills
 * (never from the cwd), one folder per skill with a SKILL.md. We write inside
 * `<profile home>/skills/<name>/` and nowhere else: config.yaml, .env and SOUL.md are the
 * user's and are never touched.
 */
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import { TalariaError } from '../../protocol/errors.js';

export const SKILL_NAME_RE = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export interface SkillFile {
  data: string | Uint8Array;
  /** Permission bits (e.g. 0o755); default 0o644 less the umask. */
  mode?: number;
}

export interface SkillInstall {
  /** The profile's home (see profileHome). */
  home: string;
  name: string;
  /** SKILL.md text. */
  skill: string;
  /**
   * Extra files, by path relative to the skill folder (scripts, references): text, or bytes with
   * their permission bits (a script keeps its executable bit; a binary file stays byte for byte).
   */
  files?: Record<string, string | SkillFile>;
  /** Replace an existing skill of that name (default: refuse). */
  overwrite?: boolean;
}

export interface SkillInstalled {
  dir: string;
  files: string[];
  replaced: boolean;
  /** Non-blocking remarks (e.g. no front matter). */
  warnings: string[];
}

const inside = (dir: string, p: string) => {
  const r = relative(dir, p);
  return r !== '' && !r.startsWith('..') && !isAbsolute(r);
};

export function installSkill(o: SkillInstall): SkillInstalled {
  if (!SKILL_NAME_RE.test(o.name)) {
    throw new TalariaError('invalid_argument', `skill name "${o.name}" must match ${SKILL_NAME_RE.source}`);
  }
  const skillsDir = join(o.home, 'skills');
  const dir = join(skillsDir, o.name);
  const files: [string, SkillFile][] = [['SKILL.md', { data: o.skill }]];
  for (const [rel, file] of Object.entries(o.files ?? {})) {
    const target = normalize(join(dir, rel));
    if (isAbsolute(rel) || !inside(dir, target) || rel.split(/[\\/]/).includes('..')) {
      throw new TalariaError('invalid_argument', `skill file "${rel}" must stay inside the skill folder`);
    }
    if (relative(dir, target) === 'SKILL.md')
      throw new TalariaError('invalid_argument', 'pass SKILL.md as `skill`, not in `files`');
    files.push([relative(dir, target), typeof file === 'string' ? { data: file } : file]);
  }
  const replaced = existsSync(dir);
  if (replaced && !o.overwrite)
    throw new TalariaError('invalid_state', `skill "${o.name}" already exists in ${skillsDir}`, { dir });

  // Build the whole skill next to its final place, then swap it in: never half a skill.
  const staging = join(skillsDir, `.${o.name}.installing-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  for (const [rel, file] of files) {
    const p = join(staging, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, file.data);
    // Exactly the bits given (writeFileSync's mode is cut by the umask).
    if (file.mode !== undefined) chmodSync(p, file.mode & 0o777);
  }
  if (replaced) rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);

  const warnings: string[] = [];
  if (!/^---\r?\n[\s\S]*?\bname:[\s\S]*?\r?\n---/.test(o.skill)) {
    warnings.push('SKILL.md has no front matter with a `name:` (Hermes lists skills by it).');
  }
  return { dir, files: files.map(([rel]) => join(dir, rel).split(sep).join('/')), replaced, warnings };
}
