/** What the commands share: the context they run in, agent options, and setup-failure mapping. */
import { EXIT } from '../exit-codes.js';
import { UsageError } from '../args.js';
import type { CliIo } from '../io.js';
import type { Harness, HarnessExtras, HarnessOptions } from '../../harness/index.js';
import { RuntimeError, type AgentChoice, type AgentRuntime } from '../runtime.js';
import type { AgentArgs } from '../agent-options.js';
import { isStoreProblem, storeProblemLine } from '../store-problem.js';
import type { OpenOptions } from '../runtime-types.js';

export interface CliContext {
  io: CliIo;
  /** A fresh runtime per command (through the harness). */
  runtime: (o?: { warm?: boolean }) => AgentRuntime;
  /** The harness on this run's env ($TALARIA_HOME, PATH, HOME): doctor, agents, sessions. The caller closes it. */
  harness: (
    o?: { warm?: boolean } & Pick<HarnessOptions, 'onRecordingDelay' | 'onRecordingError' | 'store'>,
  ) => Harness & HarnessExtras;
  version: string;
  /** Registers a SIGINT handler for the command's lifetime; returns the unregister. */
  onInterrupt(fn: () => void): () => void;
  /** Registers a SIGTERM/SIGHUP handler (the signal is passed) for the command's lifetime; returns the unregister. */
  onTerminate(fn: (signal: NodeJS.Signals) => void): () => void;
  /**
   * Set when main.ts's fast path already looked for a running server for this `talaria run` and
   * did not use it: why (for --verbose). The run then stays local instead of asking again.
   */
  serverSkipped?: string;
}

export { AGENT_OPTIONS, agentArgs, type AgentArgs } from '../agent-options.js';

/** The part of `runtime.open()` every agent command shares: which agent, where, which session, progress. */
export function openBase(
  a: AgentArgs,
  sessionId: string | undefined,
  signal: AbortSignal,
  progress: { step(s: string): void },
): Pick<OpenOptions, 'cwd' | 'sessionId' | 'signal' | 'onProgress'> & AgentChoice {
  return {
    ...a.choice,
    cwd: a.cwd,
    ...(sessionId !== undefined ? { sessionId } : {}),
    signal,
    onProgress: (s) => progress.step(s),
  };
}

export interface SetupFailure {
  exitCode: number;
  code: string;
  message: string;
}

/** A failure before the turn: which exit code, and a message for the person. */
export function setupFailure(err: unknown): SetupFailure {
  if (err instanceof UsageError) return { exitCode: EXIT.USAGE, code: 'usage', message: err.message };
  // The store is not ready (read-only, corrupt, full…) wherever in the setup it showed: its own code and line.
  if (isStoreProblem(err)) return { exitCode: EXIT.NOT_READY, code: storeCodeOf(err), message: storeProblemLine(err) };
  if (err instanceof RuntimeError) {
    if (err.code === 'aborted') return { exitCode: EXIT.CANCELLED, code: 'cancelled', message: err.message };
    if (err.code === 'session_not_found')
      return { exitCode: EXIT.USAGE, code: 'session_not_found', message: err.message };
    if (err.code === 'unknown_agent') return { exitCode: EXIT.USAGE, code: 'unknown_agent', message: err.message };
    return { exitCode: EXIT.NOT_READY, code: 'not_ready', message: err.message };
  }
  return { exitCode: EXIT.INTERNAL, code: 'internal', message: err instanceof Error ? err.message : String(err) };
}

/** The string code a store problem goes out with in --json / --ndjson (`store_read_only`, `store_corrupt`…). */
export const storeCodeOf = (err: unknown): string => {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('store_') || code === 'recording_failed') ? code : 'store_failed';
};

/** Prompt text from the positionals; `-` reads stdin to the end. */
export async function readPrompt(command: string, positionals: string[], io: CliIo): Promise<string> {
  if (positionals.length === 0) throw new UsageError(`${command}: missing PROMPT (use - to read it from stdin)`);
  if (positionals.length === 1 && positionals[0] === '-') {
    const chunks: Buffer[] = [];
    for await (const c of io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
    const text = Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
    if (text.trim() === '') throw new UsageError(`${command}: the prompt read from stdin is empty`);
    return text;
  }
  return positionals.join(' ');
}
