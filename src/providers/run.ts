/**
 * Runs a short command (`--version`, `acp --check`, `profile list`) under a time limit. Never
 * throws: readiness turns every outcome into a gap with a human fix. The child gets its own
 * process group so a timeout kills whatever it started too.
 */
import { spawn } from 'node:child_process';
import { buildChildEnv } from '../os/env.js';

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
}

export function runProgram(command: string, args: readonly string[], o: RunOptions = {}): Promise<RunResult> {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const max = o.maxChars ?? 64 * 1024;
  const env = buildChildEnv(o.parentEnv ?? process.env, { inherit: o.inherit ?? [], set: o.env ?? {} });
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
      killTree(child.pid);
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

function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    if (process.platform === 'win32') process.kill(pid, 'SIGKILL');
    else process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/** The first non-empty line of a command's output, for messages. */
export function firstLine(text: string): string {
  return (
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l !== '') ?? ''
  );
}

/** Stack-trace furniture: says where, not what went wrong. */
const TRACE_NOISE =
  /^(?:Traceback \(most recent call last\):|File ".*", line \d+|at\s|\^+$|~+[\^~]*$|node:internal\/|Node\.js v\d|throw \w+;?$|\{$|\}$|\.\.\.|During handling of the above exception)/;

/**
 * The line of an error output that says what went wrong. A Python crash begins with
 * "Traceback (most recent call last):" and ends with the exception; a Node crash puts
 * "Error: …" after the source line and before the stack. Else the first non-empty line.
 */
export function meaningfulLine(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const kept = lines.filter((l) => !TRACE_NOISE.test(l) && !/^\s*\d+\s*\|/.test(l));
  const error = [...kept]
    .reverse()
    .find((l) => /^(?:[\w.]*(?:Error|Exception|Exit|Interrupt)|error|fatal|panic)\b[^:]*:/i.test(l));
  if (error) return error;
  if (/^Traceback \(most recent call last\):/m.test(text)) return kept.at(-1) ?? firstLine(text);
  return kept[0] ?? firstLine(text);
}

/** "Hermes Agent v0.18.2", "0.61.0", "codex-acp 0.16.0" → the first x.y.z. */
export function parseVersion(text: string): string | undefined {
  return /\bv?(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)\b/.exec(text)?.[1];
}

/** Compares dotted versions numerically (prerelease tags ignored). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[-+]/)[0]!.split('.').map(Number);
  const pb = b.split(/[-+]/)[0]!.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}
