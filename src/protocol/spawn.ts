/**
 * Starting an agent process. The child gets an allow-listed environment (never the parent's
 * API keys unless passed in `env`), an explicit cwd, its own process group so the whole group
 * can be signalled at once, and a random tag in its environment so the tools it starts are
 * found even after they left that group (proc-tree.ts). stderr is kept in a ring buffer whose
 * tail goes into error messages.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { buildChildEnv } from '../os/env.js';
import { TalariaError } from './errors.js';
import { AGENT_TAG_VAR, bootTicks, endTree, newAgentTag, readStat, scanTree } from '../os/proc-tree.js';
import { signalGroup } from '../os/process-group.js';
import { RingBuffer } from '../os/ring-buffer.js';
import { silentLogger, type Logger } from './types.js';

export interface SpawnAgentOptions {
  command: string;
  args?: readonly string[];
  /** Required: an agent never inherits our cwd by accident. */
  cwd: string;
  /** Set explicitly in the child (secrets included: the user configured them). */
  env?: Record<string, string | undefined>;
  /** Extra non-secret parent variable names to pass through. */
  inherit?: readonly string[];
  /** stderr ring size in bytes (default 64 KiB). */
  stderrBytes?: number;
  /** The tag set in AGENT_TAG_VAR (default: a fresh random one). Never log it. */
  tag?: string;
  logger?: Logger;
}

/** Alias kept for callers that spell it this way. */
export type SpawnOptions = SpawnAgentOptions;

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface AgentProcess {
  readonly pid: number;
  readonly command: string;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** The last `maxChars` characters of stderr. */
  stderrTail(maxChars?: number): string;
  /** Resolves once the process exited and its stderr was read to the end (or a short grace). */
  readonly exited: Promise<ExitInfo>;
  readonly hasExited: boolean;
  /** The tag every process it starts inherits (AGENT_TAG_VAR). */
  readonly tag: string;
  /** Its start time in ticks since boot (undefined without /proc): with `tag`, what names its tree. */
  readonly startTicks: number | undefined;
  /** Signal the whole process group (default SIGTERM). No-op once exited. */
  kill(signal?: NodeJS.Signals): void;
  /**
   * Close stdin → wait → SIGTERM group → wait → SIGKILL group, then end whatever it started
   * outside its group (SIGTERM, grace, SIGKILL). Resolves when all of that is done.
   */
  terminate(options?: { graceMs?: number }): Promise<ExitInfo>;
}

// After 'exit', stderr may still hold unread bytes; wait this long for its end at most.
const STDERR_DRAIN_MS = 250;

export async function spawnAgent(options: SpawnAgentOptions): Promise<AgentProcess> {
  const { command, cwd } = options;
  const args = options.args ?? [];
  const logger = options.logger ?? silentLogger;
  if (!cwd) throw new TalariaError('spawn_failed', `cannot start ${command}: no working directory given`);
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    throw new TalariaError(
      'spawn_failed',
      `cannot start ${command}: working directory ${cwd} does not exist or is not a directory`,
      { command, cwd },
    );
  }

  const tag = options.tag ?? newAgentTag();
  // Set last: a configured env cannot unmark the agent.
  const env = buildChildEnv(process.env, {
    inherit: options.inherit ?? [],
    set: { ...(options.env ?? {}), [AGENT_TAG_VAR]: tag },
  });
  const spawnedAfter = bootTicks();
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(command, [...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true, windowsHide: true });
  } catch (e) {
    // Synchronous failures (bad argument types, EINVAL) — ENOENT/EACCES come as 'error' below.
    throw spawnError(command, cwd, e);
  }

  await new Promise<void>((resolve, reject) => {
    const onSpawn = (): void => {
      child.off('error', onError);
      resolve();
    };
    const onError = (e: Error): void => {
      child.off('spawn', onSpawn);
      reject(spawnError(command, cwd, e));
    };
    child.once('spawn', onSpawn);
    child.once('error', onError);
  });

  const pid = child.pid!;
  // Read now, while the child surely exists; the clock read before the spawn is the fallback (never late).
  const startTicks = readStat(pid)?.start ?? spawnedAfter;
  const stderr = new RingBuffer(options.stderrBytes ?? 64 * 1024);
  let stderrEnded = false;
  let onStderrEnd: (() => void) | undefined;
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stderr.once('close', () => {
    stderrEnded = true;
    onStderrEnd?.();
  });
  // EPIPE and friends after the child died are expected; never let them crash us.
  child.stdin.on('error', (e) => logger.debug('agent stdin error', { pid, error: e.message }));
  child.stdout.on('error', (e) => logger.debug('agent stdout error', { pid, error: e.message }));
  child.stderr.on('error', (e) => logger.debug('agent stderr error', { pid, error: e.message }));
  child.on('error', (e) => logger.warn('agent process error', { pid, error: e.message }));

  let hasExited = false;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      hasExited = true;
      const info = { code, signal };
      logger.debug('agent exited', { pid, code, signal });
      if (stderrEnded) return resolve(info);
      const timer = setTimeout(() => resolve(info), STDERR_DRAIN_MS);
      onStderrEnd = () => {
        clearTimeout(timer);
        resolve(info);
      };
    });
  });

  function kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (hasExited) return; // the group id could be reused once everyone is gone
    if (signalGroup(pid, signal)) return;
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }

  let terminating: Promise<ExitInfo> | undefined;
  /**
   * Once the leader is gone, whatever it left in its group (a forked grandchild) is killed too.
   * Safe right after exit: a group id is not reused while the group still has members.
   */
  function reapGroup(): void {
    if (process.platform !== 'win32') signalGroup(pid, 'SIGKILL');
  }

  function terminate({ graceMs = 2000 }: { graceMs?: number } = {}): Promise<ExitInfo> {
    terminating ??= (async () => {
      if (!hasExited) {
        try {
          child.stdin.end();
        } catch {
          /* already closed */
        }
        if (!(await exitedWithin(graceMs))) {
          kill('SIGTERM');
          if (!(await exitedWithin(graceMs))) kill('SIGKILL');
        }
      }
      const info = await exited;
      reapGroup();
      if (startTicks !== undefined) {
        const r = await endTree(() => scanTree({ tag, agentPid: pid, agentStart: startTicks }), graceMs);
        if (r.ended.length || r.survived.length)
          logger.debug('agent tree ended', { pid, ended: r.ended.length, survived: r.survived.map((p) => p.pid) });
      }
      return info;
    })();
    return terminating;
  }

  function exitedWithin(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(hasExited), ms);
      void exited.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  return {
    pid,
    command,
    stdin: child.stdin,
    stdout: child.stdout,
    stderrTail: (maxChars?: number) => stderr.tail(maxChars),
    exited,
    get hasExited() {
      return hasExited;
    },
    tag,
    startTicks,
    kill,
    terminate,
  };
}

function spawnError(command: string, cwd: string, e: unknown): TalariaError {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const why =
    code === 'ENOENT'
      ? `command not found: ${command} (is it installed and on PATH?)`
      : code === 'EACCES'
        ? `permission denied running ${command} (is it executable?)`
        : `cannot start ${command}: ${(e as Error)?.message ?? String(e)}`;
  return new TalariaError('spawn_failed', why, { command, cwd, errno: code }, { cause: e });
}
