/**
 * The runtime contract between the commands and whatever opens agents (runtime.ts: the harness).
 * Commands only see these types.
 */
import { TalariaError } from '../protocol/errors.js';
import type { SessionOrigin, HarnessSession, ListResult } from '../harness/index.js';
import type { ClientOptions } from '../session/client.js';
import type { SessionEvent } from '../session/events.js';
import type { Session } from '../session/session.js';

export interface AgentChoice {
  /** A registry id (hermes, claude-code, codex, gemini, opencode, kimi, demo, config.json agents…). */
  agent?: string;
  /** A command line that speaks ACP on stdio, split like a shell would. */
  agentCmd?: string;
  /** An agent over WebSocket (ws:// on loopback, else wss:// with a token: #token=… or TALARIA_TOKEN). */
  agentUrl?: string;
  /** Provider profile (Hermes `-p NAME`). */
  profile?: string;
}

export interface OpenOptions extends AgentChoice {
  cwd: string;
  /** Reopen this session (Talaria's id, the agent's id, or a unique prefix of either). */
  sessionId?: string;
  /** permission, setupTimeoutMs, logger and onFrame are used; the host sets its own clientInfo. */
  client?: ClientOptions;
  /** Gets the session's state as events first (what happened while it opened), then live events. */
  onEvent?: (e: SessionEvent) => void;
  /** Human progress steps ("Starting …", "Loading session …"). */
  onProgress?: (step: string) => void;
  signal?: AbortSignal;
  /** A new session is marked as made by this (a one-shot `talaria run`). */
  createdBy?: 'run';
}

/** What the chat's /sessions needs from the agent. */
export interface AgentLink {
  capabilities: { supportsSession(feature: string): boolean };
  /** This workspace's sessions: Talaria's store merged with the agent's own list (Talaria ids first). */
  sessions(): Promise<ListResult>;
  /** Resolves when the agent process died (the host starts a new one on the next use). */
  closed: Promise<unknown>;
}

export interface OpenedAgent {
  client: AgentLink;
  session: Session;
  /** Human name of the agent (with its version once initialize told us). */
  label: string;
  isDemo: boolean;
  /** The registry agent to sign in to when it asks (absent: an agent by command or URL, which `talaria login` cannot name). */
  signIn?: SignInTarget;
  /** A notice to show the person before anything else (the demo fallback banner). */
  banner?: string;
  /** Talaria's id of the session (the store row): the id shown everywhere. */
  talariaId: string;
  origin?: SessionOrigin;
  historyFrom?: HarnessSession['historyFrom'];
  /** Switches the model / mode and stores the choice with the session (re-applied when reopened). */
  setModel(id: string): Promise<void>;
  setMode(id: string): Promise<void>;
  /** Makes `id` the model / mode new sessions of this agent start with in this workspace. */
  setDefault(kind: 'model' | 'mode', id: string): void;
  /**
   * What of the session could not be stored, first failure (the store's own error when its file
   * is at fault): known by the time a turn's result resolves, since a turn's end waits for the disk.
   */
  recordingFailure?(): Error | undefined;
  /**
   * The session's cost as `talaria usage` has it ("~$0.0041", "no price" for a Hermes record without
   * one), for the status line; undefined when nothing is known about it (no agent figure at all).
   */
  cost?(): string | undefined;
}

export interface SignInTarget {
  provider: string;
  profile?: string;
}

/** A RuntimeError's sign-in details: the agent asked for one while the session opened. */
export function signInOf(err: unknown): { target: SignInTarget; reason: string } | undefined {
  if (!(err instanceof RuntimeError)) return undefined;
  const d = err.details as { signIn?: SignInTarget; reason?: string } | undefined;
  return d?.signIn ? { target: d.signIn, reason: d.reason ?? err.message } : undefined;
}

export interface AgentRuntime {
  open(opts: OpenOptions): Promise<OpenedAgent>;
  /**
   * Ends whatever open() started. Idempotent, safe mid-open. `force`: kill the agents' process
   * groups at once instead of closing stdin and waiting (after a hang, a crash or a second Ctrl-C).
   */
  close(opts?: { force?: boolean }): Promise<void>;
}

export type RuntimeErrorCode =
  /** --agent names no agent Talaria knows (bad usage). */
  | 'unknown_agent'
  /** A stored session's agent is not configured on this machine. */
  | 'not_configured'
  | 'spawn_failed'
  /** The command ran but is not an ACP agent (it echoed initialize, or wrote non-JSON on stdout). */
  | 'not_acp'
  | 'initialize_failed'
  | 'session_failed'
  | 'session_not_found'
  | 'aborted'
  | 'store_failed';

/** Why an agent could not be opened; the CLI maps it onto an exit code. */
export class RuntimeError extends TalariaError<RuntimeErrorCode> {
  override readonly name = 'RuntimeError';
}

export const DEMO_BANNER = 'Using the Talaria demo agent (offline, scripted) — install Hermes or pass --agent-cmd';
export const DEMO_NOTE = 'Using the Talaria demo agent (offline, scripted)';
