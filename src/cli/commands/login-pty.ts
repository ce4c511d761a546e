/**
 * Runs a sign-in command (an agent's terminal auth method) in a pseudo-terminal of its own,
 * attached to the user's terminal: util-linux `script -qfec CMD /dev/null` makes the pty and
 * relays it, so the command sees a real TTY (line editing, hidden input, its own Ctrl-C) and the
 * user's terminal is restored when it ends. node-pty would do the same but is a native build;
 * the CLI only needs the relay, which `script` (on every Debian/Ubuntu, in util-linux) gives.
 * Where `script` is missing (macOS's BSD one has other flags), the command gets our terminal as is.
 */
import { spawn } from 'node:child_process';
import { hasUtilLinuxScript, scriptArgs, shellLine } from '../../os/shell.js';

export interface PtyResult {
  /** The command's exit code (null: killed by `signal`). */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** How it was run: `script` (a pty of its own) or `inherit` (our terminal as is). */
  via: 'script' | 'inherit';
}

/** Runs `command args` with `env` (the whole env the command gets) in `cwd`; resolves when it ends. */
export function runInPty(
  command: string,
  args: readonly string[],
  o: { env: Record<string, string>; cwd: string },
): Promise<PtyResult> {
  const viaScript = hasUtilLinuxScript();
  const child = viaScript
    ? spawn('script', scriptArgs(shellLine([command, ...args])), {
        cwd: o.cwd,
        env: { ...o.env, SHELL: '/bin/sh' },
        stdio: 'inherit',
      })
    : spawn(command, [...args], { cwd: o.cwd, env: o.env, stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal, via: viaScript ? 'script' : 'inherit' }));
  });
}
