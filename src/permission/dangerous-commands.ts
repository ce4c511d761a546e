/**
 * The per-command rules of the dangerous-command check (dangerous.ts finds the commands a line
 * runs and unwraps them; this decides about one). Arguments carry a `dyn` flag: text known only
 * at run time, which may turn out to be any option.
 */

import type { SimpleCommand } from './shell.js';
import type { Tok, Unwrapped } from './command-words.js';
import { riskyAssignment } from './env-words.js';
import { inlineCodeReason, isInterpreter, type Feed } from './interpreters.js';

export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'yash', 'posh']);
const SOURCERS = new Set(['source', '.']);
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch']);
const POWER = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
const ROOTISH = new Set([
  '/',
  '/*',
  '~',
  '~/',
  '~/*',
  '$HOME',
  '${HOME}',
  '$HOME/',
  '$HOME/*',
  '${HOME}/',
  '${HOME}/*',
]);
const BLOCK_DEVICE = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-|mapper\/)/;

/** `--rec` is `--recursive` to GNU tools (unambiguous long-option prefixes are accepted). */
const isLong = (arg: string, full: string, min: number): boolean => arg.length >= min && full.startsWith(arg);

export function checkCommand(
  u: Unwrapped,
  simple: SimpleCommand,
  feed: Feed,
  recurse: (words: Tok[]) => string | undefined,
  sub: (script: string) => string | undefined,
): string | undefined {
  for (const r of simple.redirects) {
    if (r.op.includes('>') && BLOCK_DEVICE.test(r.target)) return `write to block device ${r.target}`;
  }
  if (u.elevated) return 'runs as another user (sudo)';
  if (u.riskyEnv) return `sets ${u.riskyEnv}, which changes what runs`;
  if (u.dynName) return 'command name computed at run time';
  if (u.script) return u.script.dyn ? `${u.name} runs a script computed at run time` : sub(u.script.text);
  const { name, args } = u;
  if (!name) return undefined;
  // Options that may come from a variable or from xargs' input.
  const unknownArgs = u.extraArgs || args.some((a) => a.dyn);
  switch (name) {
    case 'rm':
      return checkRm(args, u.extraArgs);
    case 'chmod': {
      if (unknownArgs) return 'chmod with arguments known only at run time';
      if (args.some((a) => /^0?[0-7]?777$/.test(a.text) || /^[augo]*\+rwx$/.test(a.text))) return 'chmod 777';
      if (recursive(args) && args.some((a) => ROOTISH.has(a.text))) return 'recursive chmod on / or ~';
      return undefined;
    }
    case 'chown':
    case 'chgrp':
      if (unknownArgs) return `${name} with arguments known only at run time`;
      return recursive(args) ? `recursive ${name}` : undefined;
    case 'mke2fs':
    case 'wipefs':
    case 'shred':
      return name;
    case 'dd':
      if (unknownArgs) return 'dd with arguments known only at run time';
      if (args.some((a) => /^of=\/dev\//.test(a.text))) return 'dd onto a device';
      // Zeros or noise written over a file destroy it as surely as rm.
      return args.some((a) => /^if=\/dev\/(zero|u?random)$/.test(a.text)) && args.some((a) => a.text.startsWith('of='))
        ? 'dd overwriting a file'
        : undefined;
    case 'truncate':
      return checkTruncate(args, unknownArgs);
    case 'mv':
      // Moved onto a device (`mv x /dev/null`): the data is gone, or the device is replaced.
      return mvTarget(args)?.startsWith('/dev/') ? 'mv onto a device' : undefined;
    case 'export':
    case 'declare':
    case 'typeset':
    case 'local':
    case 'readonly': {
      const risky = args.map((a) => riskyAssignment(a.text)).find(Boolean);
      return risky ? `sets ${risky}, which changes what runs` : undefined;
    }
    case 'git':
      return checkGit(args, u.extraArgs);
    case 'kill':
      return checkKill(args.map((a) => a.text));
    case 'systemctl':
      return args.some((a) => ['reboot', 'poweroff', 'halt', 'kexec'].includes(a.text)) ? 'system power' : undefined;
    case 'init':
    case 'telinit':
      return args[0]?.text === '0' || args[0]?.text === '6' ? 'system power' : undefined;
    case 'eval':
      if (args.some((a) => a.dyn)) return 'eval of text computed at run time';
      return sub(args.map((a) => a.text).join(' '));
    case 'find':
      return checkFind(args, recurse);
  }
  if (name.startsWith('mkfs')) return 'mkfs';
  if (POWER.has(name)) return 'system power';
  if (SHELLS.has(name) || SOURCERS.has(name)) return checkShell(u, simple, feed, sub);
  if (isInterpreter(name)) return inlineCodeReason(name, args, simple, feed);
  return undefined;
}

/** What a shell runs: its `-c` script, here-docs and here-strings, input and downloads fed to it. */
function checkShell(
  u: Unwrapped,
  simple: SimpleCommand,
  feed: Feed,
  sub: (s: string) => string | undefined,
): string | undefined {
  const args = u.args;
  if (SHELLS.has(u.name) && feed.piped && readsStdin(args))
    return feed.downloaded ? 'download piped into a shell' : 'input piped into a shell';
  const c = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a.text));
  const script = c >= 0 ? args[c + 1] : undefined;
  if (script) {
    if (script.dyn || u.replaced) return 'shell script computed at run time';
    const r = sub(script.text);
    if (r) return r;
  }
  for (const h of simple.heredocs) {
    const r = sub(h.body);
    if (r) return r;
  }
  for (const r of simple.redirects) {
    if (r.op !== '<<<') continue;
    const found = sub(r.target);
    if (found) return found;
  }
  if (
    simple.subs.some(
      (s) => s.words[0] !== undefined && DOWNLOADERS.has(s.words[0].slice(s.words[0].lastIndexOf('/') + 1)),
    )
  ) {
    return 'download run by a shell';
  }
  return undefined;
}

/** A shell with no `-c` script and no script file reads its commands from standard input. */
function readsStdin(args: Tok[]): boolean {
  for (const a of args) {
    if (a.text === '-s' || a.text === '-') return true;
    if (/^-[a-z]*c[a-z]*$/.test(a.text)) return false;
    if (!a.text.startsWith('-') && !a.text.startsWith('+')) return false;
  }
  return true;
}

/** Where mv puts things: `-t DIR`, `--target-directory=DIR`, or the last operand. */
function mvTarget(args: Tok[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const m = /^(?:-t|--target-directory=?)(.*)$/.exec(args[i]!.text);
    if (m) return m[1] || args[i + 1]?.text;
  }
  return args.at(-1)?.text;
}

/** Shrinking a file (to 0, by `-N`, to a smaller or a reference size) throws its data away; growing does not. */
function checkTruncate(args: Tok[], unknownArgs: boolean): string | undefined {
  if (unknownArgs) return 'truncate with arguments known only at run time';
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!.text;
    if (a === '-r' || a.startsWith('--reference')) return 'truncate to another size';
    const size = a === '-s' || a === '--size' ? args[i + 1]?.text : /^(?:-s|--size=)(.+)$/.exec(a)?.[1];
    if (size !== undefined && !/^[+>]/.test(size)) return 'truncate shrinking a file';
  }
  return undefined;
}

function checkFind(args: Tok[], recurse: (words: Tok[]) => string | undefined): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!.text;
    if (a === '-delete') return 'find -delete';
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(a)) continue;
    let j = i + 1;
    while (j < args.length && args[j]!.text !== ';' && args[j]!.text !== '+') j++;
    const r = recurse(args.slice(i + 1, j));
    if (r) return r;
    i = j;
  }
  return undefined;
}

function recursive(args: Tok[]): boolean {
  for (const { text: a } of args) {
    if (a === '--') return false;
    if (a.startsWith('--') && isLong(a, '--recursive', 5)) return true;
    if (/^-[A-Za-z]+$/.test(a) && a.includes('R')) return true;
  }
  return false;
}

function checkRm(args: Tok[], extraArgs: boolean): string | undefined {
  let isRecursive = false;
  let operands: Tok[] = [];
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!;
    const a = t.text;
    if (a === '--') {
      operands = operands.concat(args.slice(i + 1));
      break;
    }
    if (t.dyn) return 'rm with options known only at run time';
    if (a.startsWith('--') && isLong(a, '--recursive', 3)) isRecursive = true;
    else if (a.startsWith('--') && isLong(a, '--no-preserve-root', 3)) return 'rm --no-preserve-root';
    else if (/^-[A-Za-z]+$/.test(a)) {
      if (/[rR]/.test(a)) isRecursive = true;
    } else if (!a.startsWith('--')) operands.push(t);
  }
  if (operands.some((o) => ROOTISH.has(o.text))) return 'rm on / or ~';
  if (isRecursive) return 'recursive rm';
  return extraArgs ? 'rm with arguments from input (xargs)' : undefined;
}

const GIT_GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path']);

function checkGit(args: Tok[], extraArgs: boolean): string | undefined {
  let i = 0;
  while (i < args.length && args[i]!.text.startsWith('-') && !args[i]!.dyn)
    i += GIT_GLOBAL_WITH_VALUE.has(args[i]!.text) ? 2 : 1;
  const subTok = args[i];
  if (subTok?.dyn) return 'git subcommand computed at run time';
  const subcmd = subTok?.text;
  const rest = args.slice(i + 1);
  const unknown = extraArgs || rest.some((a) => a.dyn);
  const texts = rest.map((a) => a.text);
  if (subcmd === 'push') {
    const force = texts.some(
      (a) => a.startsWith('--force') || isLong(a, '--mirror', 4) || /^-[A-Za-z]*f[A-Za-z]*$/.test(a) || /^\+./.test(a),
    );
    if (force) return 'git push --force';
    return unknown ? 'git push with arguments known only at run time' : undefined;
  }
  if (subcmd === 'reset') {
    if (texts.some((a) => isLong(a, '--hard', 4))) return 'git reset --hard';
    return unknown ? 'git reset with arguments known only at run time' : undefined;
  }
  if (subcmd === 'clean') {
    // Without -f git refuses to clean (clean.requireForce), so only forced cleans delete.
    if (texts.some((a) => isLong(a, '--force', 3) || /^-[A-Za-z]*f[A-Za-z]*$/.test(a))) return 'git clean -f';
    return unknown ? 'git clean with arguments known only at run time' : undefined;
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
