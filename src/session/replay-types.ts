/** What a wire-log replay (replay.ts) takes and gives back. */
import type { Logger } from '../protocol/types.js';
import type { PermissionMode, PermissionRule } from '../permission/types.js';
import type { SessionEvent } from './events.js';
import type { SessionHooks } from './hooks.js';
import type { Session } from './session.js';
import type { TurnResult } from './turn.js';

export interface ReplayOptions {
  hooks?: SessionHooks;
  /**
   * Without `hooks`: the hooks for the agent the log's initialize answer names (the quirk catalog's,
   * passed in by the caller: this layer does not know agents), as a live session of it gets them.
   */
  hooksForAgent?: (agentInfo: { name?: unknown; version?: unknown }) => SessionHooks | undefined;
  /** The policy the live client ran with (default: ask, so every ask takes the recorded answer). */
  permission?: { mode?: PermissionMode; rules?: PermissionRule[] };
  /** Every event of every session, synchronously, in order (serialize here: entries are live objects). */
  onEvent?: (e: SessionEvent) => void;
  logger?: Logger;
}

/** Something the replay could not reproduce exactly (bad line, failed setup, a policy that disagrees). */
export interface ReplayNote {
  /** 1-based index into the lines (0: end of log). */
  line: number;
  code: string;
  message: string;
}

export interface ReplayResult {
  /** Sessions in the order the log opened them. */
  sessions: Session[];
  /** Turn results in the order the turns ended. */
  turns: TurnResult[];
  notes: ReplayNote[];
  /** `t_ms` of the last line: where the recording ends on its own clock. */
  endMs: number;
  /** `agentInfo` from the recorded initialize response, when present. */
  agentInfo?: { name?: string; version?: string; title?: string; [k: string]: unknown };
}
