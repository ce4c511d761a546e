/**
 * How the CLI gets an agent: everything else in src/cli only sees `AgentRuntime`. This direct
 * implementation spawns `--agent-cmd` or the bundled demo agent with AcpClient.spawn; the
 * host/provider registry replaces it later (agent ids, Hermes profiles, respawn) without
 * touching the commands.
 */
import { demoAgentCommand } from '../demo/command.js';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TalariaError } from '../protocol/errors.js';
import { AcpClient, type ClientOptions } from '../session/client.js';
import type { SessionEvent } from '../session/events.js';
import { describeError, type Session } from '../session/session.js';
import { splitCommand, UsageError } from './args.js';
import { formatAgentFailure, type FailureDetails } from './failure.js';

export interface AgentChoice {
  /** A known agent id (`demo` in this build). */
  agent?: string;
  /** A command line that speaks ACP on stdio, split like a shell would. */
  agentCmd?: string;
}

export interface OpenOptions extends AgentChoice {
  cwd: string;
  /** Load this session instead of creating one. */
  sessionId?: string;
  client?: ClientOptions;
  /** Subscribed to the client before the session exists, so setup events are not missed. */
  onEvent?: (e: SessionEvent) => void;
  /** Human progress steps ("Starting …", "Loading session …"). */
  onProgress?: (step: string) => void;
  signal?: AbortSignal;
}

export interface OpenedAgent {
  client: AcpClient;
  session: Session;
  /** Human name of the agent (with its version once initialize told us). */
  label: string;
  isDemo: boolean;
  /** A notice to show the person before anything else (the demo fallback banner). */
  banner?: string;
}

export interface AgentRuntime {
  open(opts: OpenOptions): Promise<OpenedAgent>;
  /**
   * Ends whatever open() started. Idempotent, safe mid-open. `force`: signal the agent's process
   * group at once instead of closing stdin and waiting (after a hang, a crash or a second Ctrl-C).
   */
  close(opts?: { force?: boolean }): Promise<void>;
}

export type RuntimeErrorCode = 'unknown_agent' | 'spawn_failed' | 'initialize_failed' | 'session_failed' | 'session_not_found' | 'aborted';

/** Why an agent could not be opened; the CLI maps it onto an exit code. */
export class RuntimeError extends Error {
  override readonly name = 'RuntimeError';
  constructor(
    readonly code: RuntimeErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const DEMO_BANNER = 'Using the Talaria demo agent (offline, scripted) — install Hermes or pass --agent-cmd';
export const DEMO_NOTE = 'Using the Talaria demo agent (offline, scripted)';
export const KNOWN_AGENTS = ['demo'] as const;

export interface ResolvedAgent {
  command: string;
  args: string[];
  label: string;
  isDemo: boolean;
  banner?: string;
  /** Non-secret parent variables the agent also gets (on top of the allow-list). */
  inherit: string[];
}

/** The bundled demo agent (compiled next to us in dist/, else the TypeScript source through tsx). */
export function demoCommand(): { command: string; args: string[] } {
  return demoAgentCommand();
}

export function resolveAgent(choice: AgentChoice, env: NodeJS.ProcessEnv = process.env): ResolvedAgent {
  if (choice.agent !== undefined && choice.agentCmd !== undefined) throw new UsageError('pass either --agent or --agent-cmd, not both');
  if (choice.agentCmd !== undefined) {
    const words = splitCommand(choice.agentCmd);
    if (words.length === 0) throw new UsageError('--agent-cmd is empty');
    return { command: words[0]!, args: words.slice(1), label: choice.agentCmd.trim(), isDemo: false, inherit: [] };
  }
  if (choice.agent !== undefined && choice.agent !== 'demo') {
    throw new RuntimeError(
      'unknown_agent',
      `agent '${choice.agent}' is not available in this build (known: ${KNOWN_AGENTS.join(', ')}); pass --agent-cmd "COMMAND ARGS" to run any ACP agent`,
    );
  }
  const demo = demoCommand();
  return {
    ...demo,
    label: 'Talaria demo agent',
    isDemo: true,
    banner: choice.agent === 'demo' ? DEMO_NOTE : DEMO_BANNER,
    // The demo's timing knobs (tests shorten or lengthen its delays); nothing secret.
    inherit: Object.keys(env).filter((k) => k.startsWith('TALARIA_DEMO_')),
  };
}

function agentName(client: AcpClient, fallback: string): string {
  const info = client.capabilities.agentInfo as { name?: string; title?: string; version?: string } | undefined;
  const name = info?.title ?? info?.name;
  if (!name) return fallback;
  return info?.version ? `${name} ${info.version}` : name;
}

function startError(err: unknown, label: string): RuntimeError {
  if (err instanceof RuntimeError) return err;
  if (err instanceof TalariaError && err.code === 'spawn_failed') return new RuntimeError('spawn_failed', err.message);
  const details = ((err as TalariaError)?.details ?? {}) as FailureDetails;
  return new RuntimeError('initialize_failed', formatAgentFailure(`${label} did not initialize: ${describeError(err).message}`, details));
}

function sessionError(err: unknown, sessionId: string | undefined): RuntimeError {
  if (err instanceof TalariaError && err.code === 'session_not_found') return new RuntimeError('session_not_found', err.message);
  const d = describeError(err);
  const what = sessionId ? `could not load session ${sessionId}` : 'could not open a session';
  return new RuntimeError('session_failed', `${what}: ${d.message}`);
}

/** AcpClient.spawn straight from the command line (no registry, no respawn). */
export function createDirectRuntime(env: NodeJS.ProcessEnv = process.env): AgentRuntime {
  let client: AcpClient | undefined;
  let closed = false;
  return {
    async open(o) {
      const agent = resolveAgent(o, env);
      const aborted = new Promise<never>((_, reject) => {
        const fail = () => reject(new RuntimeError('aborted', 'cancelled while the agent was starting'));
        if (o.signal?.aborted) fail();
        else o.signal?.addEventListener('abort', fail, { once: true });
      });
      aborted.catch(() => undefined);
      o.onProgress?.(`Starting ${agent.label}…`);
      const spawning = AcpClient.spawn({ command: agent.command, args: agent.args, cwd: o.cwd, inherit: agent.inherit }, o.client ?? {});
      // Whatever happens to the caller, a client that arrives after close/abort is shut down.
      spawning.then((c) => (closed || o.signal?.aborted) && void c.close(), () => undefined);
      let c: AcpClient;
      try {
        c = await Promise.race([spawning, aborted]);
      } catch (err) {
        throw startError(err, agent.label);
      }
      client = c;
      if (o.onEvent) c.subscribe(o.onEvent);
      const label = agentName(c, agent.label);
      o.onProgress?.(o.sessionId ? `Loading session ${o.sessionId} on ${label}…` : `Opening a session on ${label}…`);
      const setup = { cwd: o.cwd, ...(o.signal ? { signal: o.signal } : {}) };
      let session: Session;
      try {
        session = await Promise.race([o.sessionId ? c.loadSession(o.sessionId, setup) : c.newSession(setup), aborted]);
      } catch (err) {
        if (o.signal?.aborted) throw new RuntimeError('aborted', 'cancelled while the session was opening');
        throw sessionError(err, o.sessionId);
      }
      return { client: c, session, label, isDemo: agent.isDemo, ...(agent.banner ? { banner: agent.banner } : {}) };
    },
    async close(opts = {}) {
      closed = true;
      if (opts.force) client?.connection.process?.kill('SIGTERM');
      await client?.close();
    },
  };
}
