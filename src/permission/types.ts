/** Permission model: pure policy + stateful broker (after opencode). */

export type PermissionMode = 'ask' | 'accept-edits' | 'auto';
export type Decision = 'allow' | 'deny' | 'ask';

export interface PermissionRule {
  /** Optional stable id (store key). */
  id?: string;
  decision: Decision;
  /** Match on ACP tool kind (read, edit, execute, …); omitted = any. */
  toolKind?: string | string[];
  /** Glob against every path the request touches (absolute, or relative to a root); omitted = any. */
  pathGlob?: string;
  /** Command pattern: glob-like on the command line (e.g. "git *", "npm test"); omitted = any. */
  command?: string;
  /** Where it came from, for the audit log. */
  source?: 'default' | 'user' | 'always-answer' | 'config';
}

/** What the policy sees of a request (extracted from the ACP request by `describeRequest`). */
export interface PermissionSubject {
  sessionId: string;
  toolCallId: string;
  toolKind?: string;
  title?: string;
  /** Absolute paths from locations, diff paths and rawInput paths. */
  paths: string[];
  /** Command line when the tool is a shell call (from rawInput.command/cmd, or the title). */
  command?: string;
  /** Session roots (cwd + additional directories), absolute. */
  roots: string[];
  /**
   * `paths` with symlinks resolved (same order), and `roots` likewise: the files a request would
   * really reach. Filled in by the broker before the policy runs; without them the policy can
   * only judge names.
   */
  realPaths?: string[];
  realRoots?: string[];
  /** Set when Talaria itself is about to perform the effect for the agent (fs/*, terminal/create). */
  effect?: EffectKind;
}

/** A client-side effect the agent asks Talaria to perform. */
export type EffectKind = 'fs.read' | 'fs.write' | 'terminal.create';

export interface PolicyResult {
  decision: Decision;
  /** Which rule decided (undefined = mode default). */
  rule?: PermissionRule;
  /** Why it must ask regardless (sensitive path, dangerous command). */
  forcedAsk?: 'sensitive_path' | 'dangerous_command';
  reason: string;
}

export interface PermissionOption {
  optionId: string;
  name?: string;
  kind: 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always' | string;
  [k: string]: unknown;
}

/** The ACP answer shape. */
export type PermissionOutcome = { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' };

/** How a human/client answers: by intent, mapped by the broker onto an offered option. */
export type PermissionAnswer =
  { choice: 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always' } | { optionId: string };

/** An audit-log record: one per decision. */
export interface PermissionDecisionEvent {
  requestKey: string;
  sessionId: string;
  toolCallId: string;
  subject: PermissionSubject;
  outcome: PermissionOutcome;
  /** Which option kind was chosen (undefined when cancelled). */
  optionKind?: string;
  /** `grant`: an effect covered by the user's earlier answer to the agent's own request. */
  decidedBy: 'policy' | 'user' | 'timeout' | 'cancel' | 'closed' | 'grant';
  /** Client id of who answered, when a person did. */
  answeredBy?: string;
  rule?: PermissionRule;
  reason: string;
  at: number;
}
