/**
 * terminal/create|output|wait_for_exit|kill|release, answered by Talaria for the agent.
 * Each terminal is a real child process in its own process group (so a kill reaches the whole
 * tree), with a clean environment (the session's env + the request's, never process.env),
 * a cwd confined to the session's roots, and a bounded output buffer that keeps the tail (the
 * agent's `outputByteLimit` is clamped). Nothing starts before `authorize` (the permission
 * policy and broker, wired by the session layer) has allowed the command.
 */
import type {
  CreateTerminalRequest,
  CreateTerminalResponse,
  KillTerminalRequest,
  KillTerminalResponse,
  ReleaseTerminalRequest,
  ReleaseTerminalResponse,
  TerminalExitStatus,
  TerminalOutputRequest,
  TerminalOutputResponse,
  WaitForTerminalExitRequest,
  WaitForTerminalExitResponse,
} from '@agentclientprotocol/sdk';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { AuthorizeEffect } from './effect.js';
import { RPC } from './errors.js';
import { RequestError } from './wire-error.js';
import { errCode } from '../os/real-path.js';
import { signalGroup } from '../os/process-group.js';
import { resolveInsideRoots } from './roots.js';
import { silentLogger, type Logger } from './types.js';
import { TailBuffer } from './tail-buffer.js';
import { assertDirectory, validateCreate, type CreateParams } from './terminal-params.js';

export { TailBuffer } from './tail-buffer.js';

export const DEFAULT_OUTPUT_BYTE_LIMIT = 1024 * 1024;
/** The most output one terminal may keep, whatever the agent asks (32 terminals × this at most). */
export const MAX_OUTPUT_BYTE_LIMIT = 4 * 1024 * 1024;
export const DEFAULT_MAX_TERMINALS = 32;
/** After SIGTERM, the group gets SIGKILL this much later if anything survived. */
const KILL_GRACE_MS = 2000;
/** After the leader exits, wait this long for its pipes to close (a backgrounded grandchild may hold them). */
const CLOSE_GRACE_MS = 200;

export interface TerminalManagerOptions {
  rootsFor: (sessionId: string) => readonly string[] | undefined;
  /** The base environment of a session's commands (e.g. buildChildEnv(...)); request env is added on top. */
  env: (sessionId: string) => Record<string, string>;
  defaultOutputByteLimit?: number;
  /** Clamp for the agent's `outputByteLimit` (default MAX_OUTPUT_BYTE_LIMIT). */
  maxOutputByteLimit?: number;
  /** Decides every command before it starts (rejects with a RequestError to refuse). */
  authorize?: AuthorizeEffect;
  /** Live (unreleased) terminals allowed at once across this manager. */
  maxTerminals?: number;
  logger?: Logger;
}

export interface TerminalManager {
  create(params: CreateTerminalRequest): Promise<CreateTerminalResponse>;
  output(params: TerminalOutputRequest): Promise<TerminalOutputResponse>;
  waitForExit(params: WaitForTerminalExitRequest): Promise<WaitForTerminalExitResponse>;
  kill(params: KillTerminalRequest): Promise<KillTerminalResponse>;
  release(params: ReleaseTerminalRequest): Promise<ReleaseTerminalResponse>;
  /** A live terminal as a client shows it (its output, its end), undefined once released or unknown. */
  view(sessionId: string, terminalId: string): TerminalView | undefined;
  /** Kills and frees every terminal of a session; resolves when their processes have exited. */
  disposeSession(sessionId: string): Promise<void>;
  /** Kills and frees everything (connection gone); resolves when the processes have exited. */
  disposeAll(): Promise<void>;
}

/** What a client that cannot run terminals needs to show one's output instead (`talaria acp`). */
export interface TerminalView {
  read(): { output: string; truncated: boolean; exitStatus?: TerminalExitStatus };
  /** Resolves once the process exited and its output was all read. */
  readonly exited: Promise<TerminalExitStatus>;
  /** Called after output arrives; returns the unsubscribe. */
  onOutput(fn: () => void): () => void;
}

interface Terminal {
  id: string;
  sessionId: string;
  child: ChildProcess;
  pgid: number;
  out: TailBuffer;
  exit: TerminalExitStatus | undefined;
  exited: Promise<TerminalExitStatus>;
  watchers: Set<() => void>;
}

export function createTerminalManager(options: TerminalManagerOptions): TerminalManager {
  const log = options.logger ?? silentLogger;
  const maxLimit = options.maxOutputByteLimit ?? MAX_OUTPUT_BYTE_LIMIT;
  const defaultLimit = Math.min(options.defaultOutputByteLimit ?? DEFAULT_OUTPUT_BYTE_LIMIT, maxLimit);
  const maxTerminals = options.maxTerminals ?? DEFAULT_MAX_TERMINALS;
  const terminals = new Map<string, Terminal>();
  let starting = 0; // creates between the limit check and registration count against the limit
  // Bumped by disposeAll / disposeSession so a create still in flight does not outlive them.
  let epoch = 0;
  const sessionEpochs = new Map<string, number>();

  function lookup(params: { sessionId?: unknown; terminalId?: unknown } | undefined): Terminal {
    const t = typeof params?.terminalId === 'string' ? terminals.get(params.terminalId) : undefined;
    // A terminal of another session is reported exactly like a missing one.
    if (!t || t.sessionId !== params?.sessionId) {
      throw new RequestError(RPC.RESOURCE_NOT_FOUND, `Unknown terminal: ${String(params?.terminalId)}`, {
        terminalId: params?.terminalId,
      });
    }
    return t;
  }

  function free(t: Terminal): void {
    terminals.delete(t.id);
    if (liveGroups.has(t.pgid)) signalGroup(t.pgid, 'SIGKILL');
    t.child.stdout?.destroy();
    t.child.stderr?.destroy();
  }

  async function create(params: CreateTerminalRequest): Promise<CreateTerminalResponse> {
    const p = validateCreate(params);
    const roots = options.rootsFor(p.sessionId);
    if (!roots)
      throw new RequestError(RPC.RESOURCE_NOT_FOUND, `Unknown session: ${p.sessionId}`, { sessionId: p.sessionId });
    if (terminals.size + starting >= maxTerminals) {
      throw new RequestError(RPC.INTERNAL_ERROR, `Too many terminals (${maxTerminals}); release some first`, {
        reason: 'too_many_terminals',
        max: maxTerminals,
      });
    }
    starting++;
    try {
      return await start(p, roots);
    } finally {
      starting--;
    }
  }

  async function start(p: CreateParams, roots: readonly string[]): Promise<CreateTerminalResponse> {
    const epochAtStart = epoch;
    const sessionEpochAtStart = sessionEpochs.get(p.sessionId);
    const requestedCwd = p.cwd ?? roots[0];
    if (requestedCwd === undefined) {
      throw new RequestError(RPC.INVALID_PARAMS, 'No cwd given and the session has no roots', { reason: 'no_cwd' });
    }
    const cwd = await resolveInsideRoots(roots, requestedCwd);
    await assertDirectory(cwd, requestedCwd);
    await options.authorize?.({
      kind: 'terminal.create',
      sessionId: p.sessionId,
      command: p.command,
      args: p.args,
      env: p.env,
      cwd: requestedCwd,
      realCwd: cwd,
    });
    // The ask may have taken a while: a session closed meanwhile starts nothing.
    if (epoch !== epochAtStart || sessionEpochs.get(p.sessionId) !== sessionEpochAtStart) {
      throw new RequestError(RPC.INTERNAL_ERROR, 'Session closed while the terminal was waiting for permission', {
        reason: 'disposed',
      });
    }

    const env: Record<string, string> = { ...options.env(p.sessionId) };
    for (const { name, value } of p.env) env[name] = value;

    // No args: the older Claude adapter sends a whole shell string as `command`.
    const [file, argv] = p.args.length === 0 ? ['/bin/sh', ['-c', p.command]] : [p.command, p.args];
    const child = spawn(file, argv, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
    } catch (e) {
      const code = errCode(e);
      log.warn('terminal.spawn_failed', { sessionId: p.sessionId, command: p.command, code });
      throw new RequestError(RPC.INTERNAL_ERROR, `Cannot start ${p.command}: ${code ?? String(e)}`, {
        command: p.command,
        reason: 'spawn_failed',
        ...(code ? { code } : {}),
      });
    }
    const pgid = child.pid!; // detached => setsid: the child leads its own group
    if (epoch !== epochAtStart || sessionEpochs.get(p.sessionId) !== sessionEpochAtStart) {
      signalGroup(pgid, 'SIGKILL');
      throw new RequestError(RPC.INTERNAL_ERROR, 'Session closed while the terminal was starting', {
        reason: 'disposed',
      });
    }
    liveGroups.add(pgid);
    armExitHook();

    if (p.outputByteLimit !== undefined && p.outputByteLimit > maxLimit) {
      log.debug('terminal.output_limit_clamped', { asked: p.outputByteLimit, kept: maxLimit });
    }
    const out = new TailBuffer(Math.min(p.outputByteLimit ?? defaultLimit, maxLimit));
    const watchers = new Set<() => void>();
    const push = (b: Buffer): void => {
      out.push(b);
      for (const w of watchers) w();
    };
    // One buffer for both streams, in arrival order.
    child.stdout!.on('data', push);
    child.stderr!.on('data', push);
    child.on('error', (e) => log.warn('terminal.error', { pgid, error: String(e) }));

    const id = `term_${randomUUID()}`;
    let resolveExited!: (s: TerminalExitStatus) => void;
    const exited = new Promise<TerminalExitStatus>((r) => (resolveExited = r));
    const t: Terminal = { id, sessionId: p.sessionId, child, pgid, out, exit: undefined, exited, watchers };
    let grace: NodeJS.Timeout | undefined;
    const settle = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (grace) clearTimeout(grace);
      if (t.exit) return;
      t.exit = { exitCode: code, signal };
      log.debug('terminal.exited', { terminalId: id, exitCode: code, signal });
      resolveExited(t.exit);
    };
    child.once('exit', (code, signal) => {
      // The command is over: stragglers it backgrounded go too (release would kill them anyway).
      // Doing it now, right after the reap, avoids signalling a recycled group id later.
      signalGroup(pgid, 'SIGKILL');
      liveGroups.delete(pgid);
      // Normally 'close' follows at once; don't hang if something still holds the pipes.
      grace = setTimeout(() => settle(code, signal), CLOSE_GRACE_MS);
      grace.unref();
    });
    child.once('close', settle); // all output read
    terminals.set(id, t);
    log.debug('terminal.created', { terminalId: id, sessionId: p.sessionId, pgid, cwd, shell: p.args.length === 0 });
    return { terminalId: id };
  }

  async function disposeWhere(pred: (t: Terminal) => boolean): Promise<void> {
    const doomed = [...terminals.values()].filter(pred);
    for (const t of doomed) free(t);
    await Promise.all(doomed.map((t) => t.exited));
  }

  const read = (t: Terminal): TerminalOutputResponse => {
    const { text, truncated } = t.out.read(t.exit !== undefined);
    return t.exit ? { output: text, truncated, exitStatus: t.exit } : { output: text, truncated };
  };

  return {
    create,
    async output(params) {
      return read(lookup(params));
    },
    view(sessionId, terminalId) {
      const t = terminals.get(terminalId);
      if (!t || t.sessionId !== sessionId) return undefined;
      return {
        read: () => {
          const r = read(t);
          return { output: r.output, truncated: r.truncated, ...(r.exitStatus ? { exitStatus: r.exitStatus } : {}) };
        },
        exited: t.exited,
        onOutput: (fn) => {
          t.watchers.add(fn);
          return () => t.watchers.delete(fn);
        },
      };
    },
    async waitForExit(params) {
      const s = await lookup(params).exited;
      return { exitCode: s.exitCode ?? null, signal: s.signal ?? null };
    },
    async kill(params) {
      const t = lookup(params);
      if (liveGroups.has(t.pgid) && signalGroup(t.pgid, 'SIGTERM')) {
        // Escalate for anything that traps SIGTERM; harmless (ESRCH) if the group is gone.
        setTimeout(() => {
          if (liveGroups.has(t.pgid)) signalGroup(t.pgid, 'SIGKILL');
        }, KILL_GRACE_MS).unref();
      }
      return {};
    },
    async release(params) {
      free(lookup(params));
      return {};
    },
    disposeSession: (sessionId) => {
      sessionEpochs.set(sessionId, (sessionEpochs.get(sessionId) ?? 0) + 1);
      return disposeWhere((t) => t.sessionId === sessionId);
    },
    disposeAll: () => {
      epoch++;
      return disposeWhere(() => true);
    },
  };
}

/**
 * Detached groups would outlive Talaria if it exits without disposing: one process-wide
 * 'exit' hook kills whatever is still running.
 */
const liveGroups = new Set<number>();
let exitHookArmed = false;
function armExitHook(): void {
  if (exitHookArmed) return;
  exitHookArmed = true;
  process.once('exit', () => {
    for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  });
}
