/**
 * Runs a short command (`--version`, `acp --check`, `profile list`, `npm install`) under a time
 * limit and keeps the tail of its output. Never throws: callers turn every outcome into a message.
 * The child leads its own process group so a timeout kills whatever it started too.
 */
import { spawn } from 'node:child_process';
import { buildChildEnv } from './env.js';
import { signalGroup } from './process-group.js';

export interface RunResult {
  ok: boolean;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the command could not start (ENOENT, EACCES, …). */
  error?: string;
}

export interface RunOptions {
  timeoutMs?: number;
  /** Set explicitly in the child (on top of the allow-listed parent env). */
  env?: Record<string, string | undefined>;
  inherit?: readonly string[];
  parentEnv?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Keep at most this many characters of each stream. */
  maxChars?: number;
  /**
   * Exactly this environment, not the allow-listed one: for Talaria's own tools (npm gets the
   * user's npm config, proxy and registry), never for an agent. `env`/`inherit` are then ignored.
   */
  userEnv?: NodeJS.ProcessEnv;
}

export function runProgram(command: string, args: readonly string[], o: RunOptions = {}): Promise<RunResult> {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const max = o.maxChars ?? 64 * 1024;
  const env = o.userEnv ?? buildChildEnv(o.parentEnv ?? process.env, { inherit: o.inherit ?? [], set: o.env ?? {} });
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let done = false;
    const finish = (r: Omit<RunResult, 'stdout' | 'stderr' | 'timedOut'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...r, stdout, stderr, timedOut });
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, [...args], {
        cwd: o.cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
    } catch (e) {
      resolve({ ok: false, code: null, signal: null, stdout, stderr, timedOut, error: (e as Error).message });
      return;
    }
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup(child.pid, 'SIGKILL');
      // Do not wait for a child that ignores SIGKILL's delivery (stuck in D state): report now.
      finish({ ok: false, code: null, signal: 'SIGKILL' });
    }, timeoutMs);
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(-max)));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-max)));
    child.on('error', (e: NodeJS.ErrnoException) =>
      finish({ ok: false, code: null, signal: null, error: e.code ? `${e.code}: ${e.message}` : e.message }),
    );
    child.on('close', (code, signal) => finish({ ok: code === 0, code, signal }));
  });
}
