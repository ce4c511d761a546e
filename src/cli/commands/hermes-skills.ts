/**
 * `talaria hermes skills install DIR|FILE [--profile NAME] [--name NAME] [--force]`: a skill into a
 * Hermes profile's home (`<profile home>/skills/<name>/SKILL.md`, where Hermes looks; never the
 * workspace). The profile: --profile, else the one the workspace's new sessions use (its own one
 * is created first), else Hermes' active profile.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { OWN_PROFILE_PROVIDER, type Harness } from '../../harness/index.js';
import { findHermes } from '../../providers/hermes/binary.js';
import { activeProfile, hermesRoot, isProfileName, profileHome } from '../../providers/hermes/home.js';
import { ensureProfile } from '../../providers/hermes/profile-create.js';
import { installSkill, type SkillFile } from '../../providers/hermes/skills.js';
import { TalariaError } from '../../protocol/errors.js';
import { flag, parse, str, UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { HERMES_HELP } from '../help-admin.js';
import type { CliContext } from './common.js';

/** A skill folder's other files (scripts, references) as bytes with their mode, dot-files left out. */
function folderFiles(dir: string): Record<string, SkillFile> {
  const out: Record<string, SkillFile> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      if (name.startsWith('.')) continue;
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (relative(dir, p) !== 'SKILL.md')
        out[relative(dir, p)] = { data: readFileSync(p), mode: st.mode & 0o777 };
    }
  };
  walk(dir);
  return out;
}

export async function hermesSkillsCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const p = parse('hermes skills', argv, {
    profile: { type: 'string' },
    name: { type: 'string' },
    workspace: { type: 'string' },
    force: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (flag(p, 'help')) {
    io.stdout.write(`${HERMES_HELP}\n`);
    return EXIT.OK;
  }
  const [action, source, ...rest] = p.positionals;
  if (action !== 'install' || !source || rest.length)
    throw new UsageError('hermes skills: usage: talaria hermes skills install DIR|FILE [--profile NAME]');
  const src = resolve(source);
  if (!existsSync(src)) throw new UsageError(`hermes skills install: ${src} does not exist`);
  const isDir = statSync(src).isDirectory();
  const skillFile = isDir ? join(src, 'SKILL.md') : src;
  if (!existsSync(skillFile)) throw new UsageError(`hermes skills install: ${src} has no SKILL.md`);
  const skill = readFileSync(skillFile, 'utf8');
  // The folder's name, else the front matter's `name:` (a lone SKILL.md says nothing else).
  const fm = /^---\r?\n[\s\S]*?^name:\s*["']?([^"'\r\n]+?)["']?\s*$/m.exec(skill)?.[1];
  const name = str(p, 'name') ?? (isDir ? basename(src) : fm);
  if (!name) throw new UsageError('hermes skills install: give --name (the SKILL.md has no `name:`)');
  const explicit = str(p, 'profile');
  if (explicit !== undefined && !isProfileName(explicit))
    throw new UsageError(`hermes skills install: "${explicit}" is not a Hermes profile name`);

  const h = ctx.harness({ warm: false });
  try {
    const profile = explicit ?? (await workspaceProfile(h, resolve(str(p, 'workspace') ?? process.cwd())));
    const home = profileHome(hermesRoot(h.env), profile);
    if (!existsSync(home)) {
      io.stderr.write(
        `talaria hermes skills: Hermes has no profile "${profile}" (create it: talaria hermes profiles create ${profile} --clone)\n`,
      );
      return EXIT.NOT_READY;
    }
    const done = installSkill({
      home,
      name,
      skill,
      ...(isDir ? { files: folderFiles(src) } : {}),
      ...(flag(p, 'force') ? { overwrite: true } : {}),
    });
    for (const w of done.warnings) io.stderr.write(`talaria hermes skills: ${w}\n`);
    if (flag(p, 'json')) io.stdout.write(`${JSON.stringify({ v: 1, profile, ...done })}\n`);
    else
      io.stdout.write(
        `Installed skill ${name} into Hermes profile ${profile}: ${done.dir}${done.replaced ? ' (replaced)' : ''}\n`,
      );
    return EXIT.OK;
  } catch (e) {
    if (!(e instanceof TalariaError)) throw e;
    io.stderr.write(`talaria hermes skills: ${e.message}\n`);
    return e.code === 'invalid_argument' || e.code === 'invalid_state' ? EXIT.USAGE : EXIT.NOT_READY;
  } finally {
    await h.close();
  }
}

/** The profile the workspace's new Hermes sessions use (its own one created now), else Hermes' active one. */
async function workspaceProfile(h: Harness, dir: string): Promise<string> {
  const w = h.workspaces.find(dir);
  const set = w ? h.profileFor(w.id, OWN_PROFILE_PROVIDER) : undefined;
  if (set?.own && !set.exists) {
    const bin = findHermes(h.env).found?.command;
    if (!bin) throw new TalariaError('spawn_failed', 'Hermes is not installed (see `talaria doctor`)');
    await ensureProfile(h.env, set.profile, { command: bin, clone: true, description: `Talaria workspace ${dir}` });
  }
  return set?.profile ?? activeProfile(h.env, (f) => (existsSync(f) ? readFileSync(f, 'utf8') : undefined));
}
