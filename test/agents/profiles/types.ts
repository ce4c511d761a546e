/**
 * What a launch profile says about one real agent: how to install it and set up its launch
 * environment offline, as a user would (fake-model URL and keys, config files, HOME), and how to
 * drive it. Never a fix: quirk hooks, client capabilities and modes are Talaria's to choose from
 * what the agent says in initialize, whether it is started by built-in id or by command.
 */

export interface LaunchContext {
  /** The cache folder the agent's packages are installed in. */
  installDir: string;
  /** A fresh, empty HOME for this run. */
  home: string;
  /** A temp dir for TMPDIR. */
  tmp: string;
  /** The workspace the session runs in. */
  cwd: string;
  /** The fake model, `http://127.0.0.1:PORT` (no path). */
  modelUrl: string;
  /** False for the "no credentials" run: no key, no provider config that carries one. */
  credentials: boolean;
  /** Started by Talaria's built-in id (only `env` of the launch is used) or by the launch's own command line. */
  by: 'id' | 'command';
}

export interface Launch {
  command: string;
  args: string[];
  /** The profile's own variables (config.json's workspace env); PATH, HOME, LANG, TMPDIR and XDG_* are added by the runner. */
  env: Record<string, string>;
}

/** How the agent behaves without credentials (drives what the no-credentials cell expects). */
export type NoCredentials = 'session_new' | 'prompt' | 'hang';

export interface AgentProfile {
  name: string;
  version: string;
  /** npm specs, pinned. */
  packages: string[];
  /** Path (relative to the install folder) that exists once installed: the entry point. */
  entry: string;
  launch(ctx: LaunchContext): Launch | Promise<Launch>;
  /** Talaria's built-in id for this agent (`talaria run --agent ID`). */
  builtin: string;
  noCredentials: NoCredentials;
  /** False when the agent never sends session/request_permission (pi): no policy can be asked. */
  asksPermission?: boolean;
  /** Only the error paths can run (cursor: its backend is not on npm). */
  errorPathsOnly?: boolean;
  /** Advertises `_session/steering` (claude-agent-acp ≥ 0.24): the steer cell runs for it. */
  steers?: boolean;
  /** The continue cell runs for it: a Hermes (emulator) session continued in this agent (the Claude adapters). */
  continueFromHermes?: boolean;
  /** Known quirks of this agent, as named in the spec (documentation for the report). */
  quirks: string[];
  /** Slow starters (cursor ~21 s) get more time for initialize. */
  initTimeoutMs?: number;
}
