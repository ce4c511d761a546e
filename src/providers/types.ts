/**
 * A provider is a small descriptor of one kind of ACP agent: how to find and start it, what env
 * it gets, which client capabilities the user allows it, how to check it is ready, and how the
 * host should treat its processes. Built-ins, user-defined agents and imported ones (Zed,
 * JetBrains) all have this one shape. How an agent misbehaves is NOT here: quirk sets
 * (quirks/) follow what the agent says about itself in `initialize`, however it was started.
 */
import type { Logger } from '../protocol/types.js';

/** Where discovery and readiness look (injectable, so tests never touch the real machine). */
export interface ProviderEnv {
  /** The parent environment (default process.env). */
  env: Record<string, string | undefined>;
  homeDir: string;
  platform: NodeJS.Platform;
  /** Extra directories searched before PATH (e.g. an npm install folder's node_modules/.bin). */
  searchPath?: string[];
  logger?: Logger;
  /**
   * Answers worth keeping while this environment lives (an agent's version): one per harness or
   * host, never module-wide, so two harnesses never see each other's. Absent: nothing is kept.
   */
  memo?: Map<string, unknown>;
}

export interface CommandSpec {
  command: string;
  args: string[];
}

/** A located agent: what to run, and how it was found (shown in `talaria agents`). */
export interface Located extends CommandSpec {
  via: string;
}

export interface LaunchOptions {
  /** Provider profile (Hermes `-p NAME`); ignored by providers without profiles. */
  profile?: string;
}

export type GapCode =
  | 'not_installed'
  | 'not_executable'
  | 'version_failed'
  | 'unconfigured'
  | 'auth'
  | 'timeout'
  | 'config'
  | 'profile_missing'
  | 'spawn_failed'
  | 'initialize_failed';

/** Something between the user and a working agent, with the human fix (never a stack trace). */
export interface ReadinessGap {
  code: GapCode;
  message: string;
  fix: string;
  /** `auth` gaps: the agent's sign-in methods (what `talaria login AGENT METHOD` takes). */
  authMethods?: AuthMethodInfo[];
}

/** How a sign-in method is carried out: `authenticate` (agent), a command in a terminal, or a variable to set. */
export type AuthKind = 'agent' | 'terminal' | 'env_var';

/** One of an agent's auth methods as shown to the user: no `env` values, no `_meta`. */
export interface AuthMethodInfo {
  id: string;
  name: string;
  kind: AuthKind;
  description?: string;
  /** env_var methods: the variables to set. */
  vars?: string[];
}

export interface Readiness {
  providerId: string;
  label: string;
  found: boolean;
  command?: Located;
  version?: string;
  /** True when nothing blocks a session (warnings allowed). */
  ready: boolean;
  gaps: ReadinessGap[];
  /** Worth telling, not blocking. */
  warnings: ReadinessGap[];
}

export interface ReadinessOptions extends LaunchOptions {
  /** Limit for each check (default 10 s). */
  timeoutMs?: number;
}

export interface ClientCaps {
  fs?: { read?: boolean; write?: boolean };
  terminal?: boolean;
}

/** Switches for behaviour the host applies around the session core (hooks cover the rest); part of a quirk set. */
export interface ProviderQuirks {
  /** Returns the id of a session the agent silently created on `session/resume` of an unknown id. */
  strayResumeId?(result: unknown, requestedId: string): string | undefined;
  /** Retry a `session/new` that failed with MCP servers once without them (and tell the user). */
  retryNewWithoutMcp?: boolean;
  /**
   * After a `context_overflow` turn the agent's session cannot go on (Hermes 0.18.2 merges every
   * later prompt into the failed one; a reload replays it): the next message goes to a fresh agent
   * session seeded with a compact copy of the thread (host/reseed.ts).
   */
  reseedOnOverflow?: boolean;
  /**
   * The agent's own steer (host/steer.ts): 'slash-during-tool' = Hermes' `/steer`, which reaches
   * the model only while a tool runs (0.18.2 drops it during plain text).
   */
  steer?: 'slash-during-tool';
  /** Send set_model / set_mode / set_config_option only between turns. */
  configBetweenTurns?: boolean;
  /** After set_model, load the session again with its MCP servers (Hermes ≤0.20 drops them). */
  reloadAfterSetModel?: boolean;
  /**
   * A session with no history is invisible in the agent's `session/list` (Hermes), so one can be
   * opened ahead of time and kept ready for the next "new session" without anyone seeing it.
   */
  spareSessions?: boolean;
  /** Turns an agent's session-setup error into a human one (e.g. "run `hermes setup`"). */
  describeSetupError?(error: unknown, o: LaunchOptions): Error | undefined;
}

export type ProviderSource = 'builtin' | 'config' | 'zed' | 'jetbrains' | 'registry';

export interface HookOptions extends LaunchOptions {
  env?: ProviderEnv;
}

export interface Provider {
  readonly id: string;
  readonly label: string;
  readonly source: ProviderSource;
  /** Human fix when the command is missing. */
  readonly install: string;
  locate(ctx: ProviderEnv, o?: LaunchOptions): Promise<Located | undefined>;
  readiness(ctx: ProviderEnv, o?: ReadinessOptions): Promise<Readiness>;
  readonly env: {
    /** Non-secret parent variables passed through (where the agent's config lives, its model); secret-looking names are dropped. */
    inherit: readonly string[];
    /**
     * Parent variables the USER chose to pass (config.json `passEnv`), credentials included.
     * Empty for every built-in: ambient keys never reach an agent on their own.
     */
    pass: readonly string[];
    /** Always set (switches such as DISABLE_TELEMETRY, or the env the user configured for the agent). */
    set: Readonly<Record<string, string>>;
  };
  /** The user's ceilings on the client capabilities we offer (can only switch things off). */
  readonly clientCaps: ClientCaps;
  /**
   * The `agentInfo.name` a built-in expects its agent to give in `initialize`: its quirk set's
   * client capabilities are offered from the first process. What the agent really says decides.
   */
  readonly agentName?: string;
  /** The user's word on restart (config.json); else the agent's quirk set decides. */
  readonly sessionsSurviveRestart?: boolean;
  /** The user's word on usage reports (config.json); else the agent's quirk set decides. */
  readonly usage?: 'per-turn' | 'cumulative' | 'none';
  /** Turns one process may run at once across its sessions (Infinity = no limit). */
  readonly maxConcurrentTurns: number;
  /** Whether `profile` means something to this agent. */
  readonly profiles: boolean;
  /**
   * The npm package Talaria can install this agent from (`talaria agents add ID`, Install on the
   * Agents page) into $TALARIA_HOME/agents, and the command it provides; the agent stays this
   * provider (its env, checks and quirks), found in that folder before PATH.
   */
  readonly npm?: { readonly package: string; readonly bin: string };
  /** The version of that package Talaria installed, when it did (registry-acp/npm-builtin.ts). */
  readonly npmInstalled?: string;
}
