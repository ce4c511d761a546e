/**
 * Code handed to an interpreter inline — `python3 -c`, `perl -e`/`-E`/`-pe`, `node -e`/`-p`/
 * `--eval`, `ruby -e`, `php -r`, `osascript -e`, `deno eval`…, or fed on standard input by a
 * pipe, a here-doc or a here-string — can do anything, and Talaria cannot judge a program, so
 * the dangerous-command net (dangerous-commands.ts) treats it as dangerous. A script file
 * (`python3 build.py`, `node build.js`, `python3 -m pytest`) is judged like any command.
 * awk is the exception: its program is always inline, so it is judged by what it can reach —
 * commands (`system()`, pipes) and extensions — not by being there.
 * tests: test/permission/dangerous.test.ts
 */

import type { Tok } from './command-words.js';
import type { SimpleCommand } from './shell.js';

/** How an interpreter reads its options up to the script operand. */
interface Spec {
  /** Short options whose value is program text (`-c CODE`, `-cCODE`, `-uc CODE`). */
  code: string;
  /** Short options that take a value (the rest of the cluster, else the next word). */
  value?: string;
  /** Short options whose value can only be attached (`perl -i.bak`); ends the cluster. */
  attached?: string;
  /** Short options followed by octal digits only (`perl -0777 -l`). */
  digits?: string;
  /** Long (or single-dash word) options whose value is program text. */
  longCode?: string[];
  /** Long options that take the next word as value when not written `--x=v`. */
  longValue?: string[];
  /** A short option that names a module to run instead of a script (`python -m`). */
  module?: string;
  /** Subcommands whose argument is program text (`deno eval CODE`). */
  evalSub?: string[];
  /** Options are matched case-insensitively (PowerShell). */
  caseless?: boolean;
}

const PYTHON: Spec = { code: 'c', value: 'WXQ', module: 'm', longValue: ['--check-hash-based-pycs'] };
const NODE: Spec = {
  code: 'ep',
  value: 'rC',
  longCode: ['--eval', '--print'],
  longValue: [
    '--require',
    '--import',
    '--loader',
    '--experimental-loader',
    '--input-type',
    '--conditions',
    '--title',
    '--env-file',
  ],
  evalSub: ['eval'],
};

const SPECS: Record<string, Spec> = {
  python: PYTHON,
  pypy: PYTHON,
  perl: { code: 'eE', value: 'MmI', attached: 'ixdDCF', digits: '0l' },
  ruby: { code: 'e', value: 'IrCE', attached: 'FixKTW', digits: '0', longValue: ['--encoding'] },
  jruby: { code: 'e', value: 'IrCE', attached: 'FixKTW', digits: '0' },
  node: NODE,
  nodejs: NODE,
  bun: NODE,
  tsx: NODE,
  'ts-node': NODE,
  deno: { code: '', evalSub: ['eval'] },
  php: { code: 'rBRE', value: 'cdzfFt' },
  lua: { code: 'e', value: 'l' },
  luajit: { code: 'e', value: 'lj' },
  rscript: { code: 'e', longCode: ['--expr'] },
  r: { code: 'e', value: 'f', longCode: ['--expr'] },
  osascript: { code: 'e', value: 'ls' },
  julia: { code: 'eE', value: 'LJCtpO', longCode: ['--eval', '--print'] },
  groovy: { code: 'e' },
  elixir: { code: 'e', longCode: ['--eval'] },
  erl: { code: '', longCode: ['-eval'] },
  guile: { code: 'c' },
  racket: { code: 'e', longCode: ['--eval'] },
  sbcl: { code: '', longCode: ['--eval'] },
  clisp: { code: 'x' },
  expect: { code: 'c' },
  tclsh: { code: '' },
  wish: { code: '' },
  jshell: { code: '' },
  pwsh: {
    code: '',
    longCode: ['-c', '-command', '-e', '-ec', '-encodedcommand', '-commandwithargs', '-cwa'],
    caseless: true,
  },
  powershell: { code: '', longCode: ['-c', '-command', '-e', '-ec', '-encodedcommand'], caseless: true },
};

const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk']);
/** `python3.12` → python, `perl5.36` → perl, `ruby3.3` → ruby, `lua5.4` → lua. */
const VERSIONED = /^(python|pypy|perl|ruby|php|lua|node|julia)[\d.]*$/;
const STDIN_OPERANDS = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch']);

/** Where the command's standard input comes from, as far as the line shows. */
export interface Feed {
  /** An earlier command of the pipeline writes it. */
  piped: boolean;
  /** ...and that pipeline downloads something first. */
  downloaded: boolean;
}

/** Whether `name` is an interpreter this module judges (the unwrapped, lower-cased name). */
export function isInterpreter(name: string): boolean {
  return specOf(name) !== undefined || AWKS.has(name);
}

/** Why running `name args` with this input runs code nobody can judge first, or undefined. */
export function inlineCodeReason(name: string, args: Tok[], simple: SimpleCommand, feed: Feed): string | undefined {
  if (AWKS.has(name)) return checkAwk(name, args);
  const spec = specOf(name);
  if (!spec) return undefined;
  const r = readOptions(spec, args);
  if (r.code) return `inline ${name} code (${r.code})`;
  if (simple.heredocs.length > 0 && r.stdin) return `${name} code in a here-document`;
  if (simple.redirects.some((x) => x.op === '<<<') && r.stdin) return `${name} code in a here-string`;
  if (feed.piped && r.stdin) return feed.downloaded ? `download piped into ${name}` : `code piped into ${name}`;
  if (
    simple.subs.some(
      (s) => s.words[0] !== undefined && DOWNLOADERS.has(s.words[0].slice(s.words[0].lastIndexOf('/') + 1)),
    )
  ) {
    return `download run by ${name}`;
  }
  return undefined;
}

function specOf(name: string): Spec | undefined {
  const own = Object.hasOwn(SPECS, name) ? SPECS[name] : undefined;
  if (own) return own;
  const v = VERSIONED.exec(name);
  return v ? SPECS[v[1]!] : undefined;
}

/** What the options say: an inline-code option (its spelling), or whether the program comes from stdin. */
function readOptions(spec: Spec, args: Tok[]): { code?: string; stdin: boolean } {
  const norm = (s: string) => (spec.caseless ? s.toLowerCase() : s);
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!;
    const a = norm(t.text);
    // The first operand is the script (or, for deno/bun, a subcommand).
    if (t.dyn && !a.startsWith('-')) return { stdin: false };
    if (spec.evalSub?.includes(a)) return { code: a, stdin: false };
    if (a === '--') return { stdin: args[i + 1] === undefined || STDIN_OPERANDS.has(args[i + 1]!.text) };
    if (STDIN_OPERANDS.has(a)) return { stdin: true };
    if (!a.startsWith('-')) return { stdin: false };
    const [opt, eq] = a.split('=', 2);
    if (spec.longCode?.includes(opt!)) return { code: opt!, stdin: false };
    if (a.startsWith('--') || (spec.caseless && a.length > 2)) {
      if (eq === undefined && spec.longValue?.includes(opt!)) i++;
      continue;
    }
    const c = readCluster(spec, a.slice(1));
    if (c.code) return { code: `-${c.code}`, stdin: false };
    if (c.module) return { stdin: false };
    if (c.takesNext) i++;
  }
  return { stdin: true };
}

/** One `-abc` cluster: the code letter in it, a module letter, or a value letter left waiting for the next word. */
function readCluster(spec: Spec, cluster: string): { code?: string; module?: boolean; takesNext?: boolean } {
  for (let j = 0; j < cluster.length; j++) {
    const ch = cluster[j]!;
    const last = j === cluster.length - 1;
    if (spec.code.includes(ch)) return { code: ch };
    if (spec.module === ch) return { module: true };
    if (spec.value?.includes(ch)) return last ? { takesNext: true } : {};
    if (spec.attached?.includes(ch)) return {};
    if (spec.digits?.includes(ch)) while (/[0-7]/.test(cluster[j + 1] ?? '')) j++;
  }
  return {};
}

/** Program text that can run commands (`system()`, `print | "cmd"`, `"cmd" | getline`) or load code. */
const AWK_REACH = /\bsystem\s*\(|(^|[^|])\|(?!\|)|@load|\bextension\s*\(/;
const AWK_VALUE = new Set([
  '-F',
  '-v',
  '-f',
  '-i',
  '-l',
  '-E',
  '-e',
  '--field-separator',
  '--assign',
  '--file',
  '--include',
  '--load',
  '--source',
  '--exec',
]);

function checkAwk(name: string, args: Tok[]): string | undefined {
  const programs: Tok[] = [];
  let fromFile = false;
  let i = 0;
  for (; i < args.length; i++) {
    const t = args[i]!;
    const a = t.text;
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-') || a === '-') break;
    const [opt, eq] = a.startsWith('--') ? a.split('=', 2) : [a.slice(0, 2), a.length > 2 ? a.slice(2) : undefined];
    const value = eq !== undefined ? { text: eq, dyn: t.dyn } : AWK_VALUE.has(opt!) ? args[++i] : undefined;
    if (opt === '-l' || opt === '--load') return `${name} loads an extension`;
    if (opt === '-f' || opt === '--file' || opt === '-E' || opt === '--exec') fromFile = true;
    if ((opt === '-e' || opt === '--source') && value) programs.push(value);
  }
  if (!fromFile && programs.length === 0 && args[i]) programs.push(args[i]!);
  for (const p of programs) {
    if (p.dyn) return `${name} program computed at run time`;
    if (AWK_REACH.test(p.text)) return `${name} program runs commands`;
  }
  return undefined;
}
