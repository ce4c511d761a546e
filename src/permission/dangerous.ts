/**
 * Dangerous shell commands: these always ask, whatever the mode or allow rules say (a deny rule
 * still denies). The check looks at every command the line runs — sequences, pipes, subshells,
 * substitutions, here-docs and here-strings fed to a shell, `sh -c "…"`, `eval`, `xargs`,
 * `find -exec`, `watch`, `env -S`, and wrappers (env, nice, nohup, timeout, command, exec,
 * busybox, setsid, chroot …) — not at the raw text, so:
 * - `echo "rm -rf /"` is NOT dangerous: quoted text handed to echo is not run.
 * - `bash -c "rm -rf x"` and `echo "$(rm -rf x)"` ARE: that text is run.
 * - `grep -r rm .` is not: the command is grep.
 * Code handed to an interpreter inline (`python3 -c`, `perl -e`, `node -e`, a here-doc or a pipe
 * into python/node/ruby…) is dangerous: nobody can judge a program (interpreters.ts). So is a
 * variable that changes what runs set for a command (`LD_PRELOAD=x cmd`, `env PATH=… cmd`,
 * `export NODE_OPTIONS=…`); other `NAME=value` words are ignored (env-words.ts).
 * What cannot be known before the line runs is treated as dangerous: a command name computed at
 * run time (`$X -rf y`, `/bin/r?`, `{rm,-rf,y}`), a script text computed at run time
 * (`sh -c "$X"`, `eval "$X"`), input piped into a shell, options of rm/chmod/chown/git push|reset|
 * clean/dd that come from a variable or from xargs, and nesting deeper than the splitter looks.
 * Two checks are textual on purpose: SQL (DROP TABLE/DATABASE/SCHEMA, TRUNCATE) — SQL reaches a
 * database inside quoted arguments (`psql -c`, `mysql -e`, heredocs), so `echo "DROP TABLE t"`
 * also asks (a harmless false positive) — and the fork bomb, whose shape is its own syntax.
 * tests: test/permission/dangerous.test.ts, test/permission/shell-fuzz.test.ts
 */

import { checkCommand } from './dangerous-commands.js';
import type { Tok, Unwrapped } from './command-words.js';
import { riskyAssignment } from './env-words.js';
import type { Feed } from './interpreters.js';
import { parseShell, type SimpleCommand } from './shell.js';

const SQL = [/\bdrop\s+(table|database|schema)\b/i, /\btruncate\s+table\b/i, /\bTRUNCATE\s+(?!-)[\w"`]/];
const FORK_BOMB = /([\w:.]+)\(\)\{\1\|\1&\};?\1/;
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch']);
const MAX_DEPTH = 6;
const KEYWORDS = new Set([
  '{',
  '}',
  '!',
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  'coproc',
  '--',
]);
const ELEVATORS = new Set(['sudo', 'doas', 'su', 'pkexec', 'run0']);
const NO_FEED: Feed = { piped: false, downloaded: false };

export function isDangerousCommand(cmd: string): boolean {
  return dangerReason(cmd) !== undefined;
}

/** Why a command line is dangerous, or undefined. */
export function dangerReason(cmd: string, depth = 0): string | undefined {
  if (typeof cmd !== 'string' || cmd.trim() === '') return undefined;
  if (depth > MAX_DEPTH) return 'nested too deeply to check';
  if (FORK_BOMB.test(cmd.replace(/\s+/g, ''))) return 'fork bomb';
  if (SQL.some((re) => re.test(cmd))) return 'SQL DROP/TRUNCATE';
  for (const pipeline of parseShell(cmd)) {
    let downloaded = false;
    for (let k = 0; k < pipeline.length; k++) {
      const simple = pipeline[k]!;
      const r = checkSimple(simple, depth, { piped: k > 0, downloaded });
      if (r) return r;
      if (DOWNLOADERS.has(unwrap(toks(simple)).name)) downloaded = true;
    }
  }
  return undefined;
}

function toks(simple: SimpleCommand): Tok[] {
  return simple.words.map((text, i) => ({ text, dyn: simple.dynamic[i] === true }));
}

/** Strips assignments, keywords and wrapper commands down to the command that really runs. */
export function unwrap(words: Tok[]): Unwrapped {
  let w = words;
  let elevated = false;
  let extraArgs = false;
  let replaced = false;
  let riskyEnv: string | undefined;
  const assigned = (word: string): void => {
    riskyEnv ??= riskyAssignment(word);
  };
  const done = (name: string, dynName: boolean, args: Tok[], script?: Tok): Unwrapped => {
    const u: Unwrapped = { name, dynName, args, elevated, extraArgs, replaced };
    if (riskyEnv) u.riskyEnv = riskyEnv;
    if (script) u.script = script;
    return u;
  };
  for (let guard = 0; guard < 32 && w.length > 0; guard++) {
    const first = w[0]!;
    if (/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(first.text) && !first.text.startsWith('=')) {
      assigned(first.text);
      w = w.slice(1);
      continue;
    }
    if (KEYWORDS.has(first.text) && !first.dyn) {
      w = w.slice(1);
      continue;
    }
    if (first.dyn) return done(first.text, true, w.slice(1));
    const name = baseName(first.text);
    const rest = w.slice(1);
    if (ELEVATORS.has(name)) {
      elevated = true;
      w = skipOptions(rest, ['-u', '-g', '-h', '-p', '-U', '-C', '-D', '-r', '-t', '-c'], assigned);
      if (name === 'su') return done(name, false, rest);
    } else if (name === 'time') {
      w = skipOptions(rest, []);
    } else if (name === 'function') {
      w = rest.slice(1);
    } else if (name === 'env') {
      const s = rest.findIndex(
        (a) => a.text === '-S' || a.text === '--split-string' || /^(-S|--split-string=)./.test(a.text),
      );
      if (s >= 0) {
        const a = rest[s]!;
        const value =
          a.text === '-S' || a.text === '--split-string'
            ? rest[s + 1]
            : { text: a.text.replace(/^(-S|--split-string=)/, ''), dyn: a.dyn };
        for (const a of rest.slice(0, s)) assigned(a.text);
        if (value) return done(name, false, rest, value);
      }
      w = skipOptions(rest, ['-u', '-C', '--unset', '--chdir'], assigned);
    } else if (name === 'nice' || name === 'ionice') {
      w = skipOptions(rest, ['-n', '-c', '-p', '--adjustment', '--class', '--classdata']);
    } else if (name === 'timeout') {
      w = skipOptions(rest, ['-s', '-k', '--signal', '--kill-after']).slice(1);
    } else if (name === 'chroot') {
      w = skipOptions(rest, ['--userspec', '--groups']).slice(1);
    } else if (['stdbuf', 'nohup', 'command', 'exec', 'builtin', 'setsid', 'unbuffer', 'caffeinate'].includes(name)) {
      w = skipOptions(rest, ['-a', '-i', '-o', '-e']);
    } else if (name === 'busybox' || name === 'toybox') {
      w = rest;
    } else if (name === 'xargs') {
      extraArgs = true;
      replaced ||= rest.some((a) => /^(-I|-i|--replace|-J)/.test(a.text));
      w = skipOptions(rest, [
        '-I',
        '-n',
        '-P',
        '-L',
        '-d',
        '-E',
        '-s',
        '-a',
        '--max-args',
        '--max-procs',
        '--delimiter',
        '--arg-file',
      ]);
    } else if (name === 'watch') {
      const cmd = skipOptions(rest, ['-n', '-d', '--interval', '--differences']);
      if (cmd.length === 0) return done(name, false, rest);
      return done(name, false, rest, { text: cmd.map((t) => t.text).join(' '), dyn: cmd.some((t) => t.dyn) });
    } else {
      return done(name, false, rest);
    }
  }
  return done('', false, []);
}

/** Skips options (and, for env and sudo, VAR=value words, seen by `assigned`) before a wrapped command. */
function skipOptions(w: Tok[], takesValue: string[], assigned?: (word: string) => void): Tok[] {
  let i = 0;
  while (i < w.length) {
    const a = w[i]!.text;
    if (a === '--') return w.slice(i + 1);
    if (assigned && /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
      assigned(a);
      i++;
    } else if (a.startsWith('-') && a.length > 1) i += takesValue.includes(a) ? 2 : 1;
    else break;
  }
  return w.slice(i);
}

/** `/usr/bin/rm` → `rm`; lower-cased, since macOS finds `/BIN/RM` too. */
function baseName(word: string): string {
  const s = word.replace(/^\\/, '');
  return s.slice(s.lastIndexOf('/') + 1).toLowerCase();
}

function checkSimple(simple: SimpleCommand, depth: number, feed: Feed): string | undefined {
  if (simple.tooDeep) return 'nested too deeply to check';
  const u = unwrap(toks(simple));
  const sub = (text: string): string | undefined => dangerReason(text, depth + 1);
  // `find -exec CMD ARGS ;`: CMD runs as a command of its own.
  const recurse = (words: Tok[]): string | undefined =>
    depth >= MAX_DEPTH
      ? 'nested too deeply to check'
      : checkSimple(
          { words: words.map((t) => t.text), dynamic: words.map((t) => t.dyn), redirects: [], subs: [], heredocs: [] },
          depth + 1,
          NO_FEED,
        );
  return checkCommand(u, simple, feed, recurse, sub);
}
