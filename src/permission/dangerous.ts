/**
 * Dangerous shell commands: these always ask, whatever the mode or allow rules say (a deny rule
 * still denies). The check looks at every command the line runs — sequences, pipes, subshells,
 * substitutions, `sh -c "…"`, `eval`, `xargs`, `find -exec`, and wrappers (env, nice, nohup,
 * timeout, command, exec …) — not at the raw text, so:
 * - `echo "rm -rf /"` is NOT dangerous: quoted text handed to echo is not run.
 * - `bash -c "rm -rf x"` and `echo "$(rm -rf x)"` ARE: that text is run.
 * - `grep -r rm .` is not: the command is grep.
 * Two checks are textual on purpose: SQL (DROP TABLE/DATABASE/SCHEMA, TRUNCATE) — SQL reaches a
 * database inside quoted arguments (`psql -c`, `mysql -e`, heredocs), so `echo "DROP TABLE t"`
 * also asks (a harmless false positive) — and the fork bomb, whose shape is its own syntax.
 */

import { parseShell, type SimpleCommand } from './shell.js';

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish']);
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch']);
const ELEVATORS = new Set(['sudo', 'doas', 'su', 'pkexec', 'run0']);
const POWER = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
const KEYWORDS = new Set(['{', '}', '!', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'time', 'exec', 'command', 'builtin', 'nohup', '--']);
const ROOTISH = new Set(['/', '/*', '~', '~/', '~/*', '$HOME', '${HOME}', '$HOME/', '$HOME/*', '${HOME}/', '${HOME}/*']);
const BLOCK_DEVICE = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-|mapper\/)/;
const SQL = [/\bdrop\s+(table|database|schema)\b/i, /\btruncate\s+table\b/i, /\bTRUNCATE\s+(?!-)[\w"`]/];
const FORK_BOMB = /([\w:.]+)\(\)\{\1\|\1&\};?\1/;
const MAX_DEPTH = 6;

export function isDangerousCommand(cmd: string): boolean {
  return dangerReason(cmd) !== undefined;
}

/** Why a command line is dangerous, or undefined. */
export function dangerReason(cmd: string, depth = 0): string | undefined {
  if (typeof cmd !== 'string' || cmd.trim() === '') return undefined;
  if (depth === 0) {
    if (FORK_BOMB.test(cmd.replace(/\s+/g, ''))) return 'fork bomb';
    if (SQL.some((re) => re.test(cmd))) return 'SQL DROP/TRUNCATE';
  }
  if (depth > MAX_DEPTH) return undefined;
  for (const pipeline of parseShell(cmd)) {
    let downloaded = false;
    for (const simple of pipeline) {
      const r = checkSimple(simple, depth);
      if (r) return r;
      const name = unwrap(simple.words).name;
      if (downloaded && SHELLS.has(name)) return 'download piped into a shell';
      if (DOWNLOADERS.has(name)) downloaded = true;
    }
  }
  return undefined;
}

interface Unwrapped {
  name: string;
  args: string[];
  elevated: boolean;
}

/** Strips assignments, keywords and wrapper commands down to the command that really runs. */
function unwrap(words: string[]): Unwrapped {
  let w = words;
  let elevated = false;
  for (let guard = 0; guard < 16 && w.length > 0; guard++) {
    const first = w[0]!;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first) || KEYWORDS.has(first)) {
      w = w.slice(1);
      continue;
    }
    const name = baseName(first);
    const rest = w.slice(1);
    if (ELEVATORS.has(name)) {
      elevated = true;
      w = skipOptions(rest, new Set(['-u', '-g', '-h', '-p', '-U', '-C', '-D', '-r', '-t', '-c']));
      if (name === 'su') return { name, args: rest, elevated };
    } else if (name === 'env') {
      w = skipOptions(rest, new Set(['-u', '-C', '-S', '--unset', '--chdir']));
    } else if (name === 'nice' || name === 'ionice') {
      w = skipOptions(rest, new Set(['-n', '-c', '-p']));
    } else if (name === 'timeout') {
      w = skipOptions(rest, new Set(['-s', '-k', '--signal', '--kill-after'])).slice(1);
    } else if (name === 'stdbuf' || name === 'nohup' || name === 'command' || name === 'exec' || name === 'builtin') {
      w = skipOptions(rest, new Set(['-a']));
    } else if (name === 'xargs') {
      w = skipOptions(rest, new Set(['-I', '-n', '-P', '-L', '-d', '-E', '-s', '-a', '-i']));
    } else {
      return { name, args: rest, elevated };
    }
  }
  return { name: '', args: [], elevated };
}

function skipOptions(w: string[], takesValue: Set<string>): string[] {
  let i = 0;
  while (i < w.length) {
    const a = w[i]!;
    if (a === '--') return w.slice(i + 1);
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) i++;
    else if (a.startsWith('-') && a.length > 1) i += takesValue.has(a) ? 2 : 1;
    else break;
  }
  return w.slice(i);
}

function baseName(word: string): string {
  const s = word.replace(/^\\/, '');
  return s.slice(s.lastIndexOf('/') + 1);
}

function checkSimple(simple: SimpleCommand, depth: number): string | undefined {
  for (const r of simple.redirects) {
    if (r.op.includes('>') && BLOCK_DEVICE.test(r.target)) return `write to block device ${r.target}`;
  }
  const { name, args, elevated } = unwrap(simple.words);
  if (elevated) return 'runs as another user (sudo)';
  if (!name) return undefined;
  const sub = (text: string): string | undefined => dangerReason(text, depth + 1);
  switch (name) {
    case 'rm':
      return checkRm(args);
    case 'chmod': {
      if (args.some((a) => /^0?[0-7]?777$/.test(a) || /^[augo]*\+rwx$/.test(a))) return 'chmod 777';
      if (hasShortOrLong(args, 'R', '--recursive') && args.some((a) => ROOTISH.has(a))) return 'recursive chmod on / or ~';
      return undefined;
    }
    case 'chown':
    case 'chgrp':
      return hasShortOrLong(args, 'R', '--recursive') ? `recursive ${name}` : undefined;
    case 'mke2fs':
    case 'wipefs':
    case 'shred':
      return name;
    case 'dd':
      return args.some((a) => /^of=\/dev\//.test(a)) ? 'dd onto a device' : undefined;
    case 'git':
      return checkGit(args);
    case 'kill':
      return checkKill(args);
    case 'systemctl':
      return args.some((a) => ['reboot', 'poweroff', 'halt', 'kexec'].includes(a)) ? 'system power' : undefined;
    case 'init':
    case 'telinit':
      return args[0] === '0' || args[0] === '6' ? 'system power' : undefined;
    case 'eval':
      return sub(args.join(' '));
    case 'find': {
      for (let i = 0; i < args.length; i++) {
        if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i]!)) continue;
        let j = i + 1;
        while (j < args.length && args[j] !== ';' && args[j] !== '+') j++;
        const r = checkSimple({ words: args.slice(i + 1, j), redirects: [], subs: [] }, depth + 1);
        if (r) return r;
        i = j;
      }
      return undefined;
    }
  }
  if (name.startsWith('mkfs')) return 'mkfs';
  if (POWER.has(name)) return 'system power';
  if (SHELLS.has(name)) {
    // `sh -c "script"` / `bash -lc "…"`: the script runs. `sh <(curl …)`: a download runs.
    const c = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
    if (c >= 0 && args[c + 1] !== undefined) {
      const r = sub(args[c + 1]!);
      if (r) return r;
    }
    if (simple.subs.some((s) => DOWNLOADERS.has(unwrap(s.words).name))) return 'download run by a shell';
  }
  return undefined;
}

function hasShortOrLong(args: string[], short: string, long: string): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === long) return true;
    if (/^-[A-Za-z]+$/.test(a) && a.includes(short)) return true;
  }
  return false;
}

function checkRm(args: string[]): string | undefined {
  let recursive = false;
  let operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      operands = operands.concat(args.slice(i + 1));
      break;
    }
    if (a === '--recursive') recursive = true;
    else if (a === '--no-preserve-root') return 'rm --no-preserve-root';
    else if (/^-[A-Za-z]+$/.test(a)) {
      if (/[rR]/.test(a)) recursive = true;
    } else if (!a.startsWith('--')) operands.push(a);
  }
  if (operands.some((o) => ROOTISH.has(o))) return 'rm on / or ~';
  return recursive ? 'recursive rm' : undefined;
}

const GIT_GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path']);

function checkGit(args: string[]): string | undefined {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += GIT_GLOBAL_WITH_VALUE.has(args[i]!) ? 2 : 1;
  const subcmd = args[i];
  const rest = args.slice(i + 1);
  if (subcmd === 'push') {
    const force = rest.some(
      (a) => a === '--force' || a.startsWith('--force-with-lease') || a === '--mirror' || /^-[A-Za-z]*f[A-Za-z]*$/.test(a) || /^\+./.test(a),
    );
    return force ? 'git push --force' : undefined;
  }
  if (subcmd === 'reset') return rest.includes('--hard') ? 'git reset --hard' : undefined;
  if (subcmd === 'clean') {
    // Without -f git refuses to clean (clean.requireForce), so only forced cleans delete.
    return rest.some((a) => a === '--force' || /^-[A-Za-z]*f[A-Za-z]*$/.test(a)) ? 'git clean -f' : undefined;
  }
  return undefined;
}

function checkKill(args: string[]): string | undefined {
  let i = 0;
  if (args[0] === '-s' || args[0] === '-n') i = 2;
  else if (args[0] !== undefined && args[0] !== '--' && args[0].startsWith('-') && args.length > 1) i = 1;
  if (args[i] === '--') i++;
  return args.slice(i).includes('-1') ? 'kill every process (-1)' : undefined;
}
