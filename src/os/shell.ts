/**
 * Shell words, one way: quoting an argument for a POSIX shell line (what the permission prompt
 * shows and what a pty shim runs), and the pty shim itself — util-linux `script -qfec LINE
 * /dev/null` gives a command a pseudo-terminal of its own with no native dependency.
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
