/**
 * File and process operations of the demo agent. Every path is confined to the session cwd
 * (symlinks resolved), so the demo never reads or writes anything outside it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export type Resolved = { ok: true; abs: string; rel: string } | { ok: false; reason: string };

/** Real path of the longest existing prefix of `p`, with the missing tail appended. */
function realish(p: string): string {
  let head = p;
  const tail: string[] = [];
  while (!existsSync(head)) {
    const parent = dirname(head);
    if (parent === head) break;
    tail.unshift(basename(head));
    head = parent;
  }
  return join(realpathSync(head), ...tail);
}

/** Resolve `file` against `cwd`; refuse anything that lands outside `cwd` (after symlinks). */
export function resolveInside(cwd: string, file: string): Resolved {
  if (file.trim() === '') return { ok: false, reason: 'no file name given' };
  let root: string;
  try {
    root = realpathSync(cwd);
  } catch {
    return { ok: false, reason: `session folder ${cwd} does not exist` };
  }
  const abs = resolve(cwd, file);
  const real = realish(abs);
  const rel = relative(root, real);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    return { ok: false, reason: `refused: ${file} is outside the session folder` };
  }
  return { ok: true, abs, rel };
}

export function readTextCapped(abs: string, maxBytes: number): { text: string; truncated: boolean } {
  const buf = readFileSync(abs);
  const truncated = buf.length > maxBytes;
  return { text: buf.subarray(0, maxBytes).toString('utf8'), truncated };
}

export function readIfExists(abs: string): string | null {
  try {
    return readFileSync(abs, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Atomic write (temp + rename) so a crash never leaves half a file. */
export function writeTextAtomic(abs: string, text: string, mode?: number): void {
  mkdirSync(dirname(abs), { recursive: true });
  const tmp = `${abs}.${process.pid}.tmp`;
  writeFileSync(tmp, text, mode === undefined ? undefined : { mode });
  renameSync(tmp, abs);
}

export interface RunOptions {
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal: AbortSignal;
  /** Called with the (capped) combined output so far whenever it grows. */
  onOutput?: (output: string) => void;
}

export interface RunResult {
  exitCode: number | null;
  signal: string | null;
  output: string;
  truncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  error?: string;
}

/** Run `command` with /bin/sh in its own process group; kill the group on abort or timeout. */
export function runShellCommand(command: string, o: RunOptions): Promise<RunResult> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    let timedOut = false;
    let aborted = false;
    let spawnError: string | undefined;
    const child = spawn('/bin/sh', ['-c', command], {
      cwd: o.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // own process group, so a kill reaches grandchildren too
    });
    const killGroup = (sig: NodeJS.Signals): void => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        child.kill(sig);
      }
    };
    let hardKill: NodeJS.Timeout | undefined;
    const stop = (): void => {
      killGroup('SIGTERM');
      hardKill ??= setTimeout(() => killGroup('SIGKILL'), 500);
    };
    const onData = (b: Buffer): void => {
      if (size >= o.maxOutputBytes) {
        truncated = true;
        return;
      }
      const room = o.maxOutputBytes - size;
      const part = b.length > room ? b.subarray(0, room) : b;
      if (part.length < b.length) truncated = true;
      chunks.push(part);
      size += part.length;
      o.onOutput?.(Buffer.concat(chunks).toString('utf8'));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, o.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      stop();
    };
    if (o.signal.aborted) onAbort();
    else o.signal.addEventListener('abort', onAbort, { once: true });
    let settled = false;
    const finish = (code: number | null, sig: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (hardKill) clearTimeout(hardKill);
      o.signal.removeEventListener('abort', onAbort);
      const r: RunResult = {
        exitCode: code,
        signal: sig,
        output: Buffer.concat(chunks).toString('utf8'),
        truncated,
        timedOut,
        aborted,
      };
      if (spawnError !== undefined) r.error = spawnError;
      done(r);
    };
    // A failed spawn may emit 'error' without 'close'; settle once either way.
    child.on('error', (e) => {
      spawnError = e.message;
      if (child.pid === undefined) finish(null, null);
    });
    child.on('close', (code, sig) => finish(code, sig));
  });
}
