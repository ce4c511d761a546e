/** What a launch profile says about one real agent: how to install it, start it offline, and drive it. */
import type { SessionHooks } from '../../../src/session/hooks.js';
import type { ClientOptions } from '../../../src/session/client.js';

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
}

export interface Launch {
  command: string;
  args: string[];
  /** The profile's own variables; PATH, HOME, LANG, TMPDIR and XDG_* are added by the runner. */
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
  /** Per-agent quirk switches (to be moved into the provider descriptor); a function when they need the launch (pi reads its own log). */
  hooks?: SessionHooks | ((ctx: LaunchContext) => SessionHooks);
  /** Client capabilities offered to this agent (gemini: no fs.readTextFile). */
  fs?: ClientOptions['fs'];
  /** Capability switches / `_meta` sent in initialize (claude: `terminal-auth`, so it lists its login method). */
  clientCapabilityOverrides?: ClientOptions['clientCapabilityOverrides'];
  terminal?: boolean;
  noCredentials: NoCredentials;
  /** False when the agent never sends session/request_permission (pi): no policy can be asked. */
  asksPermission?: boolean;
  /** Mode to switch a new session to, so the agent asks before edits and commands (qwen starts in `auto`). */
  initialMode?: string;
  /** Only the error paths can run (cursor: its backend is not on npm). */
  errorPathsOnly?: boolean;
  /** Known quirks of this agent, as named in the spec (documentation for the report). */
  quirks: string[];
  /** Slow starters (cursor ~21 s) get more time for initialize. */
  initTimeoutMs?: number;
}
