/**
 * Creating a Hermes profile with Hermes itself: `hermes profile create NAME [--clone] --no-alias`.
 * Facts from Hermes 0.18.2 (hermes_cli/profiles.py, hermes_cli/main.py `cmd_profile`):
 *  - names match `^[a-z0-9][a-z0-9_-]{0,63}$` and are not hermes/default/test/tmp/root/sudo
 *    (profiles.py:37, :247, :321); the input is lower-cased first (:303);
 *  - `--clone` copies config.yaml, .env, SOUL.md, skills/ and memories from the active profile
 *    (profiles.py:1044-1095); without `--no-alias` it writes a wrapper into ~/.local/bin (main.py:11395);
 *  - every refusal prints `Error: …` on stdout and exits 1 (main.py:11436-11438): a name in use
 *    is "Profile 'x' already exists at …" (profiles.py:1041).
 * One workspace's profile is made once however many sessions start together: in-process by a
 * shared promise, across processes by a lock file beside the profiles (Hermes skips files there).
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { TalariaError } from '../../protocol/errors.js';
import { firstLine } from '../command-output.js';
import { runProgram } from '../../os/run-program.js';
import type { ProviderEnv } from '../types.js';
import { hermesRoot, PROFILE_RE, profileHome } from './home.js';

/** Hermes refuses these as profile names (hermes_cli/profiles.py:247). */
export const RESERVED_PROFILE_NAMES: ReadonlySet<string> = new Set([
  'hermes',
  'default',
  'test',
  'tmp',
  'root',
  'sudo',
]);

/** Why `name` cannot be a new profile, or undefined when Hermes would take it. */
export function profileNameProblem(name: string): string | undefined {
  if (!PROFILE_RE.test(name))
    return `"${name}" is not a Hermes profile name (lowercase letters, digits, - and _; 1–64, starting with a letter or digit)`;
  if (RESERVED_PROFILE_NAMES.has(name)) return `"${name}" is reserved by Hermes`;
  return undefined;
}

/**
 * The profile of the workspace at `path`: `talaria-<folder>-<8 hex of the path>`. Stable for a
 * path, distinct for two folders of the same name, always a valid, unreserved Hermes name.
 */
export function workspaceProfileName(path: string): string {
  const abs = resolve(path);
  const hash = createHash('sha256').update(abs).digest('hex').slice(0, 8);
  const slug = basename(abs)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug ? `talaria-${slug}-${hash}` : `talaria-${hash}`;
}

export interface CreateProfileOptions {
  /** The `hermes` executable. */
  command: string;
  /** Copy config.yaml, .env, SOUL.md and skills from the active profile (Hermes' `--clone`). */
  clone?: boolean;
  /** Shown by `hermes profile list`/describe (written last by Hermes). */
  description?: string;
  /** Write the ~/.local/bin/NAME wrapper (default: no; Talaria runs `hermes -p NAME`). */
  alias?: boolean;
  timeoutMs?: number;
}

export interface CreatedProfile {
  name: string;
  home: string;
}

/** Runs `hermes profile create`; a TalariaError says why it did not. Never prints. */
export async function createProfile(ctx: ProviderEnv, name: string, o: CreateProfileOptions): Promise<CreatedProfile> {
  const problem = profileNameProblem(name);
  if (problem) throw new TalariaError('invalid_argument', problem, { profile: name });
  const home = profileHome(hermesRoot(ctx), name);
  const args = ['profile', 'create', name];
  if (o.clone) args.push('--clone');
  if (!o.alias) args.push('--no-alias');
  if (o.description) args.push('--description', o.description);
  const timeoutMs = o.timeoutMs ?? 60_000;
  const r = await runProgram(o.command, args, { timeoutMs, parentEnv: ctx.env, inherit: ['HERMES_HOME'] });
  if (r.ok) return { name, home };
  if (r.timedOut)
    throw new TalariaError('timeout', `\`hermes profile create ${name}\` did not finish within ${timeoutMs} ms`, {
      profile: name,
    });
  if (r.error) throw new TalariaError('spawn_failed', `could not run hermes: ${r.error}`, { profile: name });
  // Hermes says why on stdout ("Error: …"); a crash leaves a traceback on stderr.
  const said = /^Error: (.*)$/m.exec(r.stdout)?.[1] ?? (firstLine(r.stderr) || `exit code ${r.code}`);
  const code = /already exists/.test(said)
    ? 'invalid_state'
    : /Invalid profile name|reserved/.test(said)
      ? 'invalid_argument'
      : 'agent_error';
  throw new TalariaError(code, `Hermes could not create profile "${name}": ${said}`, {
    profile: name,
    exitCode: r.code,
  });
}

export interface EnsureProfileOptions extends CreateProfileOptions {
  /** Give up waiting for another process's lock after this long (default 120 s). */
  waitMs?: number;
}

const making = new Map<string, Promise<{ name: string; home: string; created: boolean }>>();

/**
 * The profile, created with `createProfile` when its folder does not exist yet. Callers at the
 * same time share one creation (in this process its outcome too; another process waits for the
 * lock and finds the profile made); `created`: this process ran `profile create` for it.
 */
export function ensureProfile(
  ctx: ProviderEnv,
  name: string,
  o: EnsureProfileOptions,
): Promise<{ name: string; home: string; created: boolean }> {
  const home = profileHome(hermesRoot(ctx), name);
  if (existsSync(home) && !existsSync(lockFile(ctx, name))) return Promise.resolve({ name, home, created: false });
  const key = home;
  const running = making.get(key);
  if (running) return running;
  const p = withLock(ctx, name, o.waitMs ?? 120_000, async () => {
    if (existsSync(home)) return { name, home, created: false };
    await createProfile(ctx, name, o);
    return { name, home, created: true };
  }).finally(() => making.delete(key));
  making.set(key, p);
  return p;
}

const lockFile = (ctx: ProviderEnv, name: string) => join(hermesRoot(ctx), 'profiles', `.${name}.talaria-creating`);

/** A lock held by a process that died (or hung) is taken over after this long. */
const STALE_MS = 5 * 60_000;

async function withLock<T>(ctx: ProviderEnv, name: string, waitMs: number, fn: () => Promise<T>): Promise<T> {
  const file = lockFile(ctx, name);
  mkdirSync(join(hermesRoot(ctx), 'profiles'), { recursive: true });
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (stale(file)) {
        rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new TalariaError('timeout', `another process has been creating Hermes profile "${name}" for too long`, {
          profile: name,
          lock: file,
        });
      // Another process is creating it: look again shortly (creation takes a second or two).
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}

function stale(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > STALE_MS;
  } catch {
    return false;
  }
}
