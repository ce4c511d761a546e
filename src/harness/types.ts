/** The library face's types: a harness → workspaces → sessions, every session recorded. */
import type { QuirkSummary } from '../providers/quirks/types.js';
import type { AgentHost, HostOptions } from '../host/host.js';
import type { AgentKey } from '../host/events.js';
import type { PermissionAnswer, PermissionMode, PermissionRule } from '../permission/types.js';
import type { AnswerResult } from '../permission/broker-types.js';
import type { TalariaError } from '../protocol/errors.js';
import type { Frame, Logger, ProtocolErrorEvent } from '../protocol/types.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { TalariaConfig } from '../providers/config.js';
import type { WorkspaceProfile } from './workspace-profile.js';
import type { ProviderEnv, Readiness } from '../providers/types.js';
import type { Catalog } from '../session/catalog.js';
import type { ConnectionInfo } from '../session/client.js';
import type { SessionEvent } from '../session/events.js';
import type { PromptInput, Session } from '../session/session.js';
import type { SessionState } from '../session/state.js';
import type { Turn, TurnResult } from '../session/turn.js';
import type { AgentDefaults, Store, StoredSession, Workspace as WorkspaceRow } from '../store/index.js';
import type { Entry, Thread } from '../thread/types.js';
import type { Failure } from './failure.js';
import type { RecordingDelayEvent } from './recorder-hold.js';
import type { BranchNode } from './branches.js';
import type { PermissionRules, StoredSessions, StoredWorkspaces } from './stored.js';
import type { WarmOptions, WarmPool } from './warm-pool.js';
import type { LeaseFleet } from './session-locks.js';

export type { ConnectionInfo };

export interface HarnessOptions {
  /** Talaria's home: config.json and talaria.db (default $TALARIA_HOME, else ~/.talaria). */
  home?: string;
  /** Where agents are looked up and which parent variables they may get (default: this machine). */
  env?: ProviderEnv;
  logger?: Logger;
  /** Default: built-ins + config.json agents + Zed/JetBrains imports + the bundled demo agent. */
  registry?: ProviderRegistry;
  /**
   * Where the store is: a database file, `:memory:` (throwaway harnesses) or a `postgres://` URL
   * (a fleet's shared store). Default: config.json's `"store"`, else `<home>/talaria.db`.
   */
  store?: string;
  /**
   * On a postgres:// store (a fleet's): this machine's host id, read from `home` (the CLI passes
   * fleet/identity's; the harness imports no fleet). Workspaces are then this host's (docs/fleet.md §2).
   */
  fleetHostId?: (home: string) => string;
  /** @deprecated `store` (a file path only). */
  storePath?: string;
  /** How long a store write waits for another process's lock before it counts as `store_busy` (ms, default 5000). */
  storeBusyTimeoutMs?: number;
  /** Host tuning passed through (timeouts, idle reap, backoff, permission policy). */
  host?: Pick<
    HostOptions,
    | 'idleMs'
    | 'stallMs'
    | 'cancelGraceMs'
    | 'terminateGraceMs'
    | 'setupTimeoutMs'
    | 'backoff'
    | 'killOnExit'
    | 'flowGate'
  > & {
    permission?: { mode?: PermissionMode; rules?: PermissionRule[]; timeoutMs?: number };
  };
  /** Every frame of every agent (wire logs, probes); each session's own are recorded in the store. */
  onFrame?: (key: AgentKey, frame: Frame) => void;
  onProtocolError?: (key: AgentKey, e: ProtocolErrorEvent) => void;
  /**
   * How long opening a stored session waits while another Talaria process has it open (its
   * writer lease), before failing with `session_busy`. Default 0: fail at once.
   */
  sessionWaitMs?: number;
  /** Opening a stored session has to wait for another process (pid, host) that has it open. */
  onSessionWait?: (e: { sessionId: string; pid: number; host: string }) => void;
  /** A live session's recording failed (frames or turns not stored); also on HarnessSession.recording. */
  onRecordingError?: (e: RecordingError) => void;
  /**
   * A live session's recording waits for the store (it is locked or unreachable for now: frames
   * are held and retried), or caught up (once per outage); also on HarnessSession.recording.
   */
  onRecordingDelay?: (e: RecordingDelay) => void;
  /**
   * The warm pool: an opened workspace's agent started ahead and a spare session kept ready where
   * it helps (agents that hide empty sessions: Hermes). Default on; false (or config.json
   * `warm: false`) turns it off.
   */
  warm?: boolean | WarmOptions;
}

/** A live session the store could not keep up with: `error` is a TalariaError `recording_failed`. */
export interface RecordingError {
  /** Talaria's session id. */
  sessionId: string;
  error: TalariaError;
}

/** `recording.delayed` (N frames waiting, the store unavailable since…) or `recording.caught_up`, for one session. */
export type RecordingDelay = RecordingDelayEvent & {
  /** Talaria's session id. */
  sessionId: string;
};

/** How an opened session got its history. */
export type SessionOrigin =
  /** A fresh session. */
  | 'new'
  /** `session/load`: the agent replayed its history. */
  | 'loaded'
  /** `session/resume`: the agent kept its context; the history shown is the stored thread. */
  | 'resumed'
  /** The agent no longer has it (or cannot load): a new agent session shows the stored thread; the agent starts without that context. */
  | 'restored'
  /** `session/fork` at the agent; the history shown is the source's stored thread. */
  | 'forked'
  /** A branch (rewind, or another agent): a fresh agent session seeded with the stored thread on its first prompt. */
  | 'branched';

export interface NewSessionOptions {
  /** A registry id (default: the workspace's binding, the configured default, else the best ready agent). */
  provider?: string;
  profile?: string;
  /** The session's cwd (default: the workspace). */
  cwd?: string;
  permissionMode?: PermissionMode;
  mcpServers?: unknown[];
  additionalDirectories?: string[];
  /** What made it, when that is worth showing later: a one-shot `talaria run` (kept in the row: provenance.ts). */
  createdBy?: 'run';
}

/** A live, recorded session. */
export interface HarnessSession {
  /** Talaria's id (the store row). */
  readonly id: string;
  /** The agent's ACP session id. */
  readonly agentSessionId: string;
  readonly provider: string;
  readonly profile: string | undefined;
  readonly workspace: string;
  readonly origin: SessionOrigin;
  /** Where the history in the thread came from. */
  readonly historyFrom: 'agent' | 'store' | 'none';
  /** The session core object (everything below, and more: catalog switches, pending permissions…). */
  readonly session: Session;
  readonly thread: Thread;
  readonly state: SessionState;
  /** Models, modes and other options the agent offers (setModel / setMode pick from these). */
  readonly catalog: Catalog;
  /** Sends a prompt (queued while a turn runs); `await turn.result` never throws for agent errors. */
  prompt(input: PromptInput): Turn;
  cancel(): Promise<TurnResult | undefined>;
  /** Switches the model; the choice is stored with the session and re-applied when it is reopened. */
  setModel(id: string): Promise<void>;
  /** Switches the agent mode; stored like setModel. */
  setMode(id: string): Promise<void>;
  /** Answers a `permission.asked` event (first answer wins). */
  answerPermission(requestKey: string, answer: PermissionAnswer, answeredBy?: string): AnswerResult;
  subscribe(fn: (e: SessionEvent) => void): () => void;
  /** Events from the first read on (the iterator subscribes then, and unsubscribes when the loop ends). */
  events(opts?: { signal?: AbortSignal }): AsyncIterableIterator<SessionEvent>;
  /** The stored row as it is now. */
  stored(): StoredSession;
  /** Commits what the recorder holds now (it commits once per event-loop tick and at every turn end by itself). */
  flush(): void;
  /** How recording goes: never silent — a failure stays here (and goes to HarnessOptions.onRecordingError). */
  readonly recording: {
    /** Seq of the last frame on disk. */
    readonly lastSeq: number;
    /** Frames that could not be stored. */
    readonly lostFrames: number;
    /** Frames waiting for the store to come back (held and retried; see HarnessOptions.onRecordingDelay). */
    readonly heldFrames: number;
    /** Since when (epoch ms) the store has not taken this session's frames, while some are held. */
    readonly delayedSince: number | undefined;
    /** The first recording failure (`recording_failed`), if any. */
    readonly error: TalariaError | undefined;
  };
  /** Stops recording and closes the session at the agent (the store keeps it). */
  close(): Promise<void>;
}

/** One line of a session listing: Talaria's store merged with the agent's session/list. */
export interface SessionSummary {
  /** Talaria's id; the agent's id when only the agent knows the session. */
  id: string;
  agentSessionId?: string;
  provider: string;
  profile?: string;
  cwd: string;
  title?: string;
  archived: boolean;
  /** Talaria has it in its store. */
  stored: boolean;
  /** The agent listed it (undefined: the agent was not asked, or cannot list). */
  atAgent?: boolean;
  /** Epoch ms of the last activity Talaria saw, else when it was created. */
  updatedAt?: number;
  /** The agent's own updatedAt, as it reported it. */
  agentUpdatedAt?: string;
  /** Its last stored turn ended with an error (set by `talaria sessions list`; failure.ts). */
  failure?: Failure;
}

export interface ListOptions {
  includeArchived?: boolean;
  archivedOnly?: boolean;
  /** Merge this agent's session/list (default: no agent is asked). */
  agent?: { provider: string; profile?: string };
}

export interface ListResult {
  sessions: SessionSummary[];
  /** Why the agent's list is missing (not asked, cannot list, failed). */
  agentProblem?: string;
}

export interface OpenStoredOptions {
  /** For an id only the agent knows: which agent (default: the workspace's choice). */
  provider?: string;
  profile?: string;
  permissionMode?: PermissionMode;
  mcpServers?: unknown[];
}

export interface BranchOptions {
  /** Rewind: the user message (entry id) to go back to; the branch holds what came before it. */
  at?: string;
  /** Continue with another agent (default: the source's). */
  provider?: string;
  profile?: string;
  permissionMode?: PermissionMode;
  mcpServers?: unknown[];
}

/**
 * A conversation Talaria never stored (a Hermes session from its CLI or a messaging channel),
 * continued in a new Talaria session exactly as a stored one is (`branchSession`).
 */
export interface ForeignTranscript {
  /** Where it is kept (Hermes' session id): the branch row's previous agent session. */
  ref: string;
  /** The agent it comes from (a provider id) and how to name it ("Hermes (cli)"). */
  fromProvider: string;
  fromLabel: string;
  /** The agent's profile it was had on (a Hermes profile): the default for continuing with the same agent. */
  fromProfile?: string;
  title?: string;
  /** Its working folder, when known (a new session starts there; else in the workspace). */
  cwd?: string;
  entries: Entry[];
}

export interface Workspace {
  readonly id: string;
  readonly path: string;
  readonly name: string;
  readonly row: WorkspaceRow;
  newSession(o?: NewSessionOptions): Promise<HarnessSession>;
  /** Sessions of this workspace, newest first; archived ones only when asked. */
  sessions(o?: ListOptions): Promise<ListResult>;
  /** Opens a stored session (Talaria id, unique id prefix or agent id), or one only the agent knows. */
  openSession(id: string, o?: OpenStoredOptions): Promise<HarnessSession>;
  forkSession(id: string, o?: OpenStoredOptions): Promise<HarnessSession>;
  /** A branch of a stored session: rewind to a message (`at`) or continue with another agent (`provider`); see BranchOptions. */
  branchSession(id: string | ForeignTranscript, o: BranchOptions): Promise<HarnessSession>;
  /** The model or mode new sessions of `provider` (+ profile) in this workspace start with. */
  setDefault(o: { provider: string; profile?: string; kind: 'model' | 'mode'; id: string }): void;
  defaults(provider: string, profile?: string): AgentDefaults;
  /** Starts the agent (default: the workspace's choice) and a spare session where it helps; resolves when ready. */
  warm(o?: { provider?: string; profile?: string }): Promise<void>;
  /**
   * The agent's models and modes for this workspace without a visible session (for pickers):
   * cached, refreshed in the background; undefined when the agent cannot keep a spare session
   * and none was opened here yet.
   */
  catalog(o?: { provider?: string; profile?: string }): Promise<Catalog | undefined>;
}

export type ExportFormat = 'md' | 'json' | 'fixture';

export interface AgentStatus extends Readiness {
  source: string;
  /** The quirk set expected before the agent runs (built-in id, its command line, its version); initialize confirms it. */
  quirks?: QuirkSummary;
}

/** How the agent for a workspace was chosen (doctor prints it; the CLI uses it). */
export interface AgentPick {
  provider: string;
  profile?: string;
  from: 'flag' | 'workspace' | 'default' | 'best-ready' | 'fallback';
  /** The readiness checks made on the way (best-ready scans stop at the first ready agent). */
  checked: Readiness[];
}

export interface Harness {
  readonly home: string;
  readonly registry: ProviderRegistry;
  readonly config: TalariaConfig;
  /** config.json and editor-import problems (each a sentence). */
  readonly configProblems: string[];
  readonly env: ProviderEnv;
  readonly host: AgentHost;
  readonly store: Store;
  /** Agents started ahead and spare sessions kept ready (see warm-pool.ts). */
  readonly warm: WarmPool;
  readonly workspaces: StoredWorkspaces & {
    /** The workspace for a folder (created in the store on first use). */
    open(path: string): Workspace;
    list(): WorkspaceRow[];
  };
  /** Talaria-side operations on stored sessions (no agent needed). */
  readonly sessions: StoredSessions & {
    /** By Talaria id, unique prefix of one (4+ characters) or agent session id. */
    find(id: string): StoredSession | undefined;
    list(o?: { includeArchived?: boolean; archivedOnly?: boolean; workspace?: string }): StoredSession[];
    archive(id: string): StoredSession;
    unarchive(id: string): StoredSession;
    export(id: string, format: ExportFormat): Promise<string>;
    /** The branch tree a session belongs to (rewinds, other agents), from its root. */
    branches(id: string): BranchNode;
    /** A wire fixture (NDJSON) as a new stored session, its thread rebuilt by replay. */
    import(text: string, o?: { provider?: string; cwd?: string; title?: string }): Promise<StoredSession>;
  };
  /** Stored permission rules (global, per workspace, per session) and the decisions' audit log. */
  readonly permissions: PermissionRules;
  /** Readiness of every provider in the registry (in parallel). */
  agents(o?: { profile?: string; timeoutMs?: number }): Promise<AgentStatus[]>;
  /** --agent, else the workspace binding, else the configured default, else the best ready agent, else the demo. */
  pickAgent(o: {
    workspace: string;
    provider?: string;
    profile?: string;
    timeoutMs?: number;
    known?: readonly Readiness[];
  }): Promise<AgentPick>;
  /**
   * The profile the workspace row sets for new sessions of `provider` (a named one, or its own
   * Hermes profile, which its first session creates); nothing is created here.
   */
  profileFor(workspaceId: string, provider: string): WorkspaceProfile | undefined;
  /** What the agent behind `key` said in initialize (after it started). */
  connectionInfo(key: AgentKey): ConnectionInfo | undefined;
  /**
   * This harness is a host of a fleet (`talaria serve` on a shared PostgreSQL): its writer leases
   * name the host, and another host's lease holds while that host is online (session-locks.ts).
   */
  joinFleet(f: LeaseFleet): void;
  close(): Promise<void>;
}
