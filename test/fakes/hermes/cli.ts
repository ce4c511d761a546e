/**
 * The non-ACP surface of the `hermes` CLI the provider layer touches: `-p PROFILE`,
 * `--version`, `acp --check`, `chat -Q -q PROMPT [--resume ID]` (oneshot.ts), `profile list` (fixed-width table,
 * no JSON mode) and `profile create NAME [--clone] [--no-alias] [--description …]`.
 */
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { oneShot } from './oneshot.js';
import { hermesRoot, NO_PROVIDER, parseYamlLite, profileHome, PROFILE_RE, readConfig, readSettings } from './config.js';

const RESERVED = new Set(['hermes', 'default', 'test', 'tmp', 'root', 'sudo']);
// hermes_cli/profiles.py:40 _PROFILE_DIRS
const PROFILE_DIRS = ['memories', 'sessions', 'skills', 'skins', 'logs', 'plans', 'workspace', 'cron', 'home'];
const CLONE_FILES = ['config.yaml', '.env', 'SOUL.md', 'memories/MEMORY.md', 'memories/USER.md'];

const out = (s: string) => process.stdout.write(s + '\n');
const err = (s: string) => process.stderr.write(s + '\n');

function activeProfile(root: string): string {
  const f = join(root, 'active_profile');
  const name = existsSync(f) ? readFileSync(f, 'utf8').trim() : '';
  return name && PROFILE_RE.test(name) ? name : 'default';
}

function configuredModel(home: string): string | null {
  const f = join(home, 'config.yaml');
  if (!existsSync(f)) return null;
  const y = parseYamlLite(readFileSync(f, 'utf8'));
  const m = y.model;
  if (typeof m === 'string') return m;
  if (m && typeof m === 'object' && typeof m.default === 'string') return m.default;
  return null;
}

function gatewayRunning(home: string): boolean {
  const f = join(home, 'gateway.pid');
  if (!existsSync(f)) return false;
  try {
    process.kill(Number(readFileSync(f, 'utf8').trim()), 0);
    return true;
  } catch {
    return false;
  }
}

function profileList(root: string): number {
  if (!existsSync(root)) {
    out('No profiles found.');
    return 0;
  }
  const dir = join(root, 'profiles');
  const named = existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => n !== 'default' && PROFILE_RE.test(n) && statSync(join(dir, n)).isDirectory())
        .sort()
    : [];
  const active = activeProfile(root);
  out('');
  out(` ${'Profile'.padEnd(16)} ${'Model'.padEnd(28)} ${'Gateway'.padEnd(12)} ${'Alias'.padEnd(12)} Distribution`);
  out(` ${'─'.repeat(15)}    ${'─'.repeat(27)}    ${'─'.repeat(11)}    ${'─'.repeat(11)}    ${'─'.repeat(20)}`);
  for (const name of ['default', ...named]) {
    const home = profileHome(root, name);
    const marker = name === active ? ' ◆' : '  ';
    const model = (configuredModel(home) ?? '—').slice(0, 26);
    const gw = gatewayRunning(home) ? 'running' : 'stopped';
    const alias = name !== 'default' && existsSync(join(homedir(), '.local', 'bin', name)) ? name : '—';
    out(`${marker}${name.padEnd(15)} ${model.padEnd(28)} ${gw.padEnd(12)} ${alias.padEnd(12)} —`);
  }
  out('');
  return 0;
}

/**
 * `hermes profile create` as 0.18.2 does it (hermes_cli/main.py cmd_profile, profiles.py
 * create_profile; real outputs in test/fixtures/hermes-0.18.2-real/profile-create-*.txt): every
 * refusal is `Error: …` on STDOUT with exit 1; --clone copies config.yaml, .env, SOUL.md, the
 * memories and the whole skills/ of the active profile; a wrapper goes to ~/.local/bin unless --no-alias.
 */
function profileCreate(root: string, args: string[], env: NodeJS.ProcessEnv): number {
  const raw = args.find((a, i) => !a.startsWith('-') && !['--description', '--clone-from'].includes(args[i - 1] ?? ''));
  const opt = (flag: string) => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const name = (raw ?? '').trim().toLowerCase() === 'default' ? 'default' : (raw ?? '').trim().toLowerCase();
  if (name !== 'default' && !PROFILE_RE.test(name))
    return (out(`Error: Invalid profile name '${name}'. Must match [a-z0-9][a-z0-9_-]{0,63}`), 1);
  if (name !== 'default' && RESERVED.has(name))
    return (
      out(
        `Error: Profile name '${name}' is reserved — it collides with either the Hermes installation itself or a common system binary.  Pick a different name.`,
      ),
      1
    );
  if (name === 'default')
    return (out("Error: Cannot create a profile named 'default' — it is the built-in profile (~/.hermes)."), 1);
  const home = profileHome(root, name);
  if (existsSync(home)) return (out(`Error: Profile '${name}' already exists at ${home}`), 1);
  const fromName = opt('--clone-from') ?? activeProfile(root);
  const source = opt('--clone-from') ? profileHome(root, fromName) : (env.HERMES_HOME ?? root);
  const clone = args.includes('--clone') || opt('--clone-from') !== undefined;
  if ((clone || args.includes('--clone-all')) && !existsSync(source))
    return (out(`Error: Source profile '${opt('--clone-from') ?? 'active'}' does not exist at ${source}`), 1);
  for (const d of PROFILE_DIRS) mkdirSync(join(home, d), { recursive: true });
  if (args.includes('--clone-all')) {
    // Not the session store (state.db with its WAL side files; the emulator's transcripts).
    cpSync(source, home, {
      recursive: true,
      filter: (src) =>
        !/[/\\](state\.db(-wal|-shm)?|emulator-sessions\.json|profiles|sessions)([/\\]|$)/.test(
          src.slice(source.length),
        ),
    });
  } else if (clone) {
    for (const f of CLONE_FILES) {
      if (!existsSync(join(source, f))) continue;
      mkdirSync(dirname(join(home, f)), { recursive: true });
      copyFileSync(join(source, f), join(home, f));
    }
    if (existsSync(join(source, 'skills'))) cpSync(join(source, 'skills'), join(home, 'skills'), { recursive: true });
  }
  if (!existsSync(join(home, '.env')))
    writeFileSync(join(home, '.env'), '# Per-profile secrets for this Hermes profile.\n', { mode: 0o600 });
  if (!existsSync(join(home, 'SOUL.md'))) writeFileSync(join(home, 'SOUL.md'), '# Hermes\n');
  const description = opt('--description');
  if (description?.trim())
    writeFileSync(
      join(home, 'profile.yaml'),
      `description: ${JSON.stringify(description.trim())}\ndescription_auto: false\n`,
    );
  out('');
  out(`Profile '${name}' created at ${home}`);
  if (clone) out(`Cloned config, .env, SOUL.md, and skills from ${fromName}.`);
  if (!args.includes('--no-alias')) {
    const bin = join(env.HOME || homedir(), '.local', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, name), `#!/bin/sh\nexec hermes -p ${name} "$@"\n`, { mode: 0o755 });
    out(`Wrapper created: ${join(bin, name)}`);
  }
  out('');
  out('Next steps:');
  out(`  ${name} setup              Configure API keys and model`);
  out(`  ${name} chat               Start chatting`);
  out(`  ${name} gateway start      Start the messaging gateway`);
  const user = env.HOME || homedir();
  const shown = home.startsWith(user + '/') ? '~/' + home.slice(user.length + 1) : home;
  if (clone || args.includes('--clone-all')) {
    out('');
    out(`  Edit ${shown}/.env for different API keys`);
    out(`  Edit ${shown}/SOUL.md for different personality`);
  } else {
    out('');
    out(`  ⚠ This profile has no API keys yet. Run '${name} setup' first,`);
    out('    or it will inherit keys from your shell environment.');
    out(`  Edit ${shown}/SOUL.md to customize personality`);
  }
  out('');
  return 0;
}

/** Returns an exit code, or 'acp' when the ACP server should run. Sets HERMES_HOME for -p. */
export function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env): number | 'acp' {
  const args = [...argv];
  let profile: string | null = null;
  const pi = args.findIndex((a) => a === '-p' || a === '--profile' || a.startsWith('--profile='));
  if (pi >= 0) {
    const a = args[pi]!;
    profile = a.startsWith('--profile=') ? a.slice(10) : (args[pi + 1] ?? '');
    args.splice(pi, a.startsWith('--profile=') ? 1 : 2);
  }
  const root = hermesRoot(env);
  if (profile === null && !env.HERMES_HOME) {
    const sticky = activeProfile(root);
    if (sticky !== 'default' && existsSync(profileHome(root, sticky))) profile = sticky;
  }
  if (profile !== null) {
    const name = profile.trim().toLowerCase();
    // Not a profile name at all: the pre-parse leaves it to argparse, which refuses it (exit 2).
    if (name !== 'default' && !PROFILE_RE.test(profile)) {
      err(`hermes: error: argument command: invalid choice: '${profile}'`);
      return 2;
    }
    if (name !== 'default' && !existsSync(profileHome(root, name))) {
      err(`Error: Profile '${name}' does not exist. Create it with: hermes profile create ${name}`);
      return 1;
    }
    env.HERMES_HOME = profileHome(root, name);
  }
  const version = `Hermes Agent v${readSettings(env).version}`;
  const [cmd, sub, ...rest] = args;
  if (cmd === '--version' || cmd === '-V' || cmd === 'version') return (out(version), 0);
  if (cmd === 'acp') {
    if (args.includes('--version')) return (out(version), 0);
    if (args.includes('--check')) {
      if (readConfig(env.HERMES_HOME ?? root).provider) return (out('Hermes ACP check OK'), 0);
      err(`Hermes ACP check failed: ${NO_PROVIDER}`);
      return 1;
    }
    const unknown = args.slice(1).filter((a) => a !== '--accept-hooks');
    if (unknown.length) {
      err(`hermes acp: error: unrecognized arguments: ${unknown.join(' ')}`);
      return 2;
    }
    return 'acp';
  }
  if (cmd === 'profile' && sub === 'list') return profileList(root);
  if (cmd === 'profile' && sub === 'create') return profileCreate(root, rest, env);
  if (cmd === 'profile' && sub === 'use' && rest[0]) {
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'active_profile'), rest[0] + '\n');
    return (out(`Switched to: ${rest[0]}`), 0);
  }
  if (cmd === 'chat') return oneShot(env.HERMES_HOME ?? root, args.slice(1), env);
  err('usage: hermes [-p PROFILE] {acp,chat,profile,--version} ...');
  return 2;
}
