/**
 * Shell words, one way: quoting an argument for a POSIX shell line (what the permission prompt
 * shows and what a pty shim runs), splitting a command line the user gave back into argv, and the
 * pty shim itself — util-linux `script -qfec LINE /dev/null` gives a command a pseudo-terminal of
 * its own with no native dependency. Reading what an agent's command would run (for the policy)
 * is another job, with a forgiving parser of its own: permission/shell.ts.
 */
import { spawnSync } from 'node:child_process';

/** One argument as a shell word (single-quoted unless it is plainly safe). */
export function quoteArg(a: string): string {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

/** An argv as one shell line, each word quoted by quoteArg (a command word with `=` too: bare, the shell takes it for an assignment). */
export function shellLine(argv: readonly string[]): string {
  return argv.map((a, i) => (i === 0 && a.includes('=') ? `'${a.replace(/'/g, `'\\''`)}'` : quoteArg(a))).join(' ');
}

/** A line that cannot be split into words (an open quote). */
export class ShellSyntaxError extends Error {
  override readonly name = 'ShellSyntaxError';
}

/**
 * Splits a command line like a POSIX shell would for one simple command: whitespace separates
 * words, 'single quotes' are literal, "double quotes" allow \" \\ \$ \` escapes, a backslash
 * outside quotes escapes the next character. No expansion of any kind. Throws on an open quote.
 * The inverse of shellLine: splitWords(shellLine(argv)) is argv (test/os/shell-words.test.ts).
 */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new ShellSyntaxError('unterminated single quote');
      cur += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      i++;
      let closed = false;
      while (i < line.length) {
        const d = line[i]!;
        if (d === '"') {
          closed = true;
          i++;
          break;
        }
        if (d === '\\' && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1]!)) {
          cur += line[i + 1] === '\n' ? '' : line[i + 1];
          i += 2;
        } else {
          cur += d;
          i++;
        }
      }
      if (!closed) throw new ShellSyntaxError('unterminated double quote');
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      if (line[i + 1] !== '\n') cur += line[i + 1];
      inWord = true;
      i += 2;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
      i++;
    } else {
      cur += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

let scriptOk: boolean | undefined;
/** Whether util-linux `script` is here (Linux only: macOS's BSD one has other flags). Asked once. */
export function hasUtilLinuxScript(): boolean {
  if (scriptOk === undefined) {
    if (process.platform !== 'linux') scriptOk = false;
    else {
      const r = spawnSync('script', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      scriptOk = r.status === 0 && /util-linux/.test(`${r.stdout}${r.stderr}`);
    }
  }
  return scriptOk;
}

/**
 * The `script` arguments that run `line` in a pty of its own: -q quiet, -f flush as it goes,
 * -e the command's exit code, -c the line (run by `$SHELL -c`: give the child SHELL=/bin/sh).
 */
export function scriptArgs(line: string): string[] {
  return ['-qfec', line, '/dev/null'];
}
