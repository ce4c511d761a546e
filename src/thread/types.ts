/**
 * Thread model: entries updated in place by id (after Zed's acp_thread).
 * Everything an agent sends is kept; fields are loose JSON because agents vary.
 */

/** An ACP content block, kept as sent (text, image, audio, resource_link, resource, or unknown). */
export type ContentBlock = { type: string; [k: string]: unknown };

/** ACP tool call statuses plus Talaria's local `cancelled` (set when a cancelled turn settles it). */
export type ToolStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

export type PermissionState = {
  /** JSON-RPC id of the agent's session/request_permission. */
  requestId: string | number;
  status: 'pending' | 'allowed' | 'rejected' | 'cancelled';
  optionId?: string;
  optionKind?: string;
};

interface EntryBase {
  /** Stable Talaria entry id, unique within the thread (e.g. "e12"). */
  id: string;
  /** The turn this entry belongs to, when known (live turns; undefined for replayed history). */
  turnId?: string;
}

export interface MessageEntry extends EntryBase {
  kind: 'user_message' | 'assistant_message' | 'thought';
  /** Agent-provided message id (ACP messageId), when the agent sends one. */
  messageId?: string;
  /** Concatenated text of all text chunks. */
  text: string;
  /** Non-text blocks (images, resources…) in arrival order; text blocks are folded into `text`. */
  blocks: ContentBlock[];
}

export interface ToolCallEntry extends EntryBase {
  kind: 'tool_call';
  toolCallId: string;
  title: string;
  /** ACP ToolKind as sent (unknown kinds kept as strings). */
  toolKind?: string;
  status: ToolStatus;
  content: unknown[];
  locations: { path: string; line?: number; [k: string]: unknown }[];
  rawInput?: unknown;
  rawOutput?: unknown;
  _meta?: unknown;
  /** Who closed it: the agent, or Talaria at turn end / cancel. */
  settledBy?: 'agent' | 'turn_end' | 'cancel';
  /** When Talaria first saw the call, and when it saw it end (epoch ms; absent in a thread rebuilt without a clock). */
  startedAt?: number;
  endedAt?: number;
  /** Permission asked for this call, if any. */
  permission?: PermissionState;
}

export interface NoticeEntry extends EntryBase {
  kind: 'notice';
  level: 'info' | 'warning' | 'error';
  /** Stable machine code, e.g. "image_withheld", "context_overflow", "agent_error". */
  code: string;
  text: string;
  data?: unknown;
}

/** An update kind Talaria does not model: kept verbatim, never dropped. */
export interface UnknownEntry extends EntryBase {
  kind: 'unknown';
  sessionUpdate: string;
  raw: unknown;
}

export type Entry = MessageEntry | ToolCallEntry | NoticeEntry | UnknownEntry;

export interface PlanEntry {
  content: string;
  priority?: string;
  status?: string;
  [k: string]: unknown;
}

export interface ContextUsage {
  used?: number;
  size?: number;
  cost?: { amount: number; currency: string } | unknown;
}

export interface Thread {
  entries: Entry[];
  /** The live plan (replaced by each `plan` update); outside the entries. */
  plan: PlanEntry[] | null;
  /** The turn whose update last set the plan (absent when it came outside a turn): it is drawn in that turn. */
  planTurnId?: string;
  availableCommands: unknown[];
  currentModeId?: string;
  configOptions?: unknown[];
  title?: string;
  updatedAt?: string;
  context: ContextUsage;
  /** Extra thread-level `_meta` from session_info_update etc., last one wins. */
  meta?: unknown;
  /** Internal counters/indexes (entry id sequence, open run, toolCallId → index). */
  readonly _ix: ThreadIndex;
}

export interface ThreadIndex {
  nextId: number;
  /** Index of the entry currently accumulating chunks (no-messageId rule), or -1. */
  openRun: number;
  toolCalls: Map<string, number>;
  messages: Map<string, number>;
}

/** What a reduction changed; consumers (bus, store, UI) fan these out. */
export type ThreadChange =
  | { type: 'entry.added'; index: number; entry: Entry }
  /** `appended`: the update only added this text to the end of the entry's `text` (a streamed chunk). */
  | { type: 'entry.updated'; index: number; entry: Entry; appended?: string }
  | { type: 'plan.updated'; plan: PlanEntry[] | null; turnId?: string }
  | { type: 'commands.updated'; commands: unknown[] }
  | { type: 'mode.updated'; modeId: string }
  | { type: 'config.updated'; configOptions: unknown[] }
  | { type: 'info.updated'; title?: string; updatedAt?: string }
  | { type: 'context.updated'; context: ContextUsage };

/** Inputs to the reducer: ACP updates plus the few local actions the session core needs. */
export type ThreadAction =
  | { type: 'update'; update: { sessionUpdate: string; [k: string]: unknown } }
  /** The client sent a prompt: adds a user entry and closes any open run. */
  | { type: 'turn.started'; turnId: string; prompt: ContentBlock[] }
  /** Turn finished: open tool calls are settled (completed on normal end, cancelled on cancel). */
  | { type: 'turn.ended'; turnId: string; outcome: 'completed' | 'cancelled' | 'failed' }
  | { type: 'permission'; toolCall: { toolCallId: string; [k: string]: unknown }; permission: PermissionState }
  | { type: 'notice'; level: NoticeEntry['level']; code: string; text: string; data?: unknown };
