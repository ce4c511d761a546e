import { z } from 'zod';
import { sessionState } from '../../session/events.js';

/**
 * Shapes shared by HTTP bodies and WebSocket messages. Thread entries and agent-provided
 * parts stay loose JSON (agents vary; the thread model in src/thread/types.ts documents them).
 */
const json = z.unknown();

export const role = z.enum(['controller', 'observer']);
export type Role = z.infer<typeof role>;

export const readinessGap = z
  .object({ code: z.string().optional(), message: z.string(), fix: z.string().optional() })
  .passthrough();

export const providerInfo = z.object({
  id: z.string(),
  label: z.string(),
  /** Undefined until readiness was checked. */
  ready: z.boolean().optional(),
  /** Where the provider came from (built-in, config.json, zed import…). */
  source: z.string().optional(),
  gaps: z.array(readinessGap).default([]),
  version: z.string().optional(),
  /** The npm package Talaria installs this agent from (Install on the Agents page, `talaria agents add ID`). */
  npmPackage: z.string().optional(),
});
export type ProviderInfo = z.infer<typeof providerInfo>;

export const workspace = z.object({
  id: z.string(),
  path: z.string(),
  name: z.string(),
  /** The provider bound to this workspace (its default for new sessions), if any. */
  provider: z.string().optional(),
  profile: z.string().optional(),
  /** Hermes runs here in a profile of its own, by this name (created on its first Hermes session). */
  ownProfile: z.string().optional(),
  /** Its folder is gone (a scratch folder of an earlier run): a list may hide it. */
  missing: z.boolean().optional(),
});
export type WorkspaceInfo = z.infer<typeof workspace>;

/** A session's status as its host reports it to a fleet (docs/fleet.md §2). */
export const fleetStatus = z.enum(['idle', 'running', 'asking', 'closed', 'offline']);
export type FleetStatus = z.infer<typeof fleetStatus>;

/** One line of a session list (store ∪ the agent's session/list). */
export const sessionSummary = z.object({
  id: z.string(),
  agentSessionId: z.string().optional(),
  provider: z.string(),
  profile: z.string().optional(),
  workspaceId: z.string().optional(),
  cwd: z.string(),
  title: z.string().optional(),
  archived: z.boolean(),
  stored: z.boolean(),
  atAgent: z.boolean().optional(),
  updatedAt: z.number().optional(),
  /** Open in this server right now (an agent session is attached). */
  live: z.boolean(),
  state: z.union([sessionState, z.literal('stored')]),
  /** A permission request waits for an answer. */
  needsAttention: z.boolean(),
  /**
   * Why the session shows as failed, until its next turn starts: its last turn ended with an error,
   * or its agent stopped and could not be restarted. Optional: older servers and clients do without.
   */
  failure: z.object({ cause: z.enum(['turn', 'agent']), message: z.string() }).optional(),
  /** The first line of the last message, for a sidebar. */
  preview: z.string().optional(),
  /** How it branched off another session (its parent): a rewind at a message, a continuation in another agent, a fork. */
  branch: z
    .object({ parentId: z.string(), kind: z.enum(['rewind', 'continue', 'fork']), atMessage: z.number().optional() })
    .optional(),
  /** Made by a one-shot `talaria run`. */
  createdBy: z.literal('run').optional(),
  /**
   * Hermes compressed the conversation into new rows of its own (`_meta.hermes.sessionProvenance`):
   * how many times, and its ids — the root it began as, the parent it continued from, the row now.
   */
  hermesLineage: z
    .object({
      compressions: z.number(),
      rootHermesSessionId: z.string(),
      parentHermesSessionId: z.string().optional(),
      currentHermesSessionId: z.string(),
    })
    .optional(),
  modelId: z.string().optional(),
  modeId: z.string().optional(),
  /** In a fleet list (`?fleet=true`): the host that runs or ran it, and whether that host is up. */
  host: z
    .object({
      id: z.string(),
      name: z.string(),
      online: z.boolean(),
      self: z.boolean(),
      /** Its last heartbeat (ms): when an offline host was last heard of. */
      heartbeatAt: z.number().optional(),
    })
    .optional(),
  /** In a fleet list: its live status on its host; `offline` when that host's lease ran out. */
  presence: fleetStatus.optional(),
});
export type SessionSummaryInfo = z.infer<typeof sessionSummary>;

/** A permission request waiting for an answer. */
export const pendingPermission = z.object({
  requestKey: z.string(),
  toolCallId: z.string(),
  title: z.string().optional(),
  options: z.array(json),
  subject: json,
  /** seq of its `permission.asked` event. */
  seq: z.number(),
});
export type PendingPermission = z.infer<typeof pendingPermission>;

export const imageInput = z.object({
  mimeType: z.string().regex(/^image\//, 'an image MIME type, e.g. image/png'),
  /** Base64 data, no data: prefix. */
  data: z.string().min(1),
});

/** A prompt waiting for the running turn to end; visible and editable. */
export const queuedPrompt = z.object({
  id: z.string(),
  text: z.string(),
  images: z.number(),
  position: z.number(),
  queuedAt: z.number(),
});
export type QueuedPrompt = z.infer<typeof queuedPrompt>;

export const threadSnapshot = z.object({
  entries: z.array(json),
  plan: z.array(json).nullable(),
  availableCommands: z.array(json),
  currentModeId: z.string().optional(),
  configOptions: z.array(json).optional(),
  title: z.string().optional(),
  updatedAt: z.string().optional(),
  context: json,
  /** The agent's thread-level `_meta` (the last session_info_update's), e.g. Hermes' sessionProvenance. */
  meta: json.optional(),
  /** The turn that set the plan: the plan is drawn in that turn, in every browser. */
  planTurnId: z.string().optional(),
});

export const sessionOrigin = z.enum(['new', 'loaded', 'resumed', 'restored', 'forked', 'branched', 'stored']);

/** A session's recording delayed: what waits for the store (src/harness/recorder-hold.ts). */
export const recordingDelay = z.object({
  /** Frames (wire messages) waiting for the store. */
  frames: z.number(),
  bytes: z.number(),
  /** When the store stopped taking this session's writes (epoch ms). */
  since: z.number(),
  /** The store's last refusal (message only). */
  error: z.string(),
});

/** Part of a session was not stored (`recording_failed`): the error's message, never a stack. */
export const recordingFailure = z.object({ code: z.string(), message: z.string() });

/** How recording goes now, when it is not simply fine: delayed (held and retried) and/or failed (stays). */
export const recordingState = z.object({
  delayed: recordingDelay.optional(),
  failed: recordingFailure.optional(),
});
export type RecordingState = z.infer<typeof recordingState>;

/** Everything a client needs to draw a session at seq `seq`; events after it follow on the socket. */
export const sessionSnapshot = z.object({
  session: sessionSummary,
  /** The last event folded into this snapshot (0: none yet). */
  seq: z.number(),
  thread: threadSnapshot,
  /** How the live session got its history ('stored': not open, the store's thread). */
  origin: sessionOrigin,
  pending: z.array(pendingPermission),
  queue: z.array(queuedPrompt),
  /** The running turn, if any. */
  turnId: z.string().optional(),
  /** The normalized model catalog (see src/session/catalog.ts), when the agent reported one. */
  catalog: json.optional(),
  /** Tokens of all the session's turns (summed), and of its last ended turn: from the store's turns. */
  usage: json.optional(),
  turnUsage: json.optional(),
  /** What the agent said in initialize (name, version, capabilities) — e.g. whether it takes images. */
  agent: z
    .object({
      name: z.string().optional(),
      version: z.string().optional(),
      images: z.boolean().optional(),
      loadSession: z.boolean().optional(),
    })
    .optional(),
  /** Recording trouble (absent: every event is being stored): a reload shows it as it is now. */
  recording: recordingState.optional(),
});
export type SessionSnapshot = z.infer<typeof sessionSnapshot>;

/** A permission rule (src/permission/types.ts PermissionRule). */
export const permissionRule = z.object({
  id: z.string().optional(),
  decision: z.enum(['allow', 'deny', 'ask']),
  toolKind: z.union([z.string(), z.array(z.string())]).optional(),
  pathGlob: z.string().optional(),
  command: z.string().optional(),
  source: z.enum(['default', 'user', 'always-answer', 'config']).optional(),
});

export const storedRule = z.object({
  id: z.number(),
  scope: z.enum(['global', 'workspace', 'session']),
  scopeId: z.string().optional(),
  rule: permissionRule,
  source: z.string().optional(),
  createdAt: z.number(),
});
export type StoredRuleInfo = z.infer<typeof storedRule>;

export const auditRecord = z.object({
  id: z.number(),
  at: z.number(),
  sessionId: z.string().optional(),
  agentSessionId: z.string().optional(),
  requestKey: z.string().optional(),
  toolCallId: z.string().optional(),
  decidedBy: z.string(),
  outcome: json,
  optionKind: z.string().optional(),
  answeredBy: z.string().optional(),
  reason: z.string().optional(),
  rule: json.optional(),
  subject: json.optional(),
});

export const wireFrame = z.object({
  seq: z.number(),
  at: z.number(),
  /** 'in' (agent → Talaria) or 'out'. */
  dir: z.string(),
  msg: json,
  /** Set when the frame failed the ACP schema. */
  problem: z.string().optional(),
});

/** One session of a conversation's branch tree (issue 14): rewinds and continuations in other agents. */
export interface BranchNodeInfo {
  /** Talaria's session id: open it to continue that branch. */
  id: string;
  title?: string | undefined;
  provider: string;
  /** How it branched off its parent (absent for the root). */
  reason?: string | undefined;
  /** A rewind: the parent's user message it forks at. */
  forkEntryId?: string | undefined;
  fromProvider?: string | undefined;
  createdAt: number;
  /** Fresh agent sessions it continued in after context overflows. */
  reseeds: number;
  children: BranchNodeInfo[];
}
export const branchNode: z.ZodType<BranchNodeInfo> = z.lazy(() =>
  z.object({
    id: z.string(),
    title: z.string().optional(),
    provider: z.string(),
    reason: z.string().optional(),
    forkEntryId: z.string().optional(),
    fromProvider: z.string().optional(),
    createdAt: z.number(),
    reseeds: z.number(),
    children: z.array(branchNode),
  }),
);

/** How a steer went: sent as a normal message (nothing ran), taken by the agent, or the turn cancelled and resent. */
export const steerHow = z.enum(['prompt', 'agent', 'resent']);

/**
 * Cost as far as it is known (issue 38): no `usd` when no price is known — shown as "no price",
 * never $0. `estimated`: Hermes' own estimate from its price table.
 */
export const usageCost = z.object({ usd: z.number().optional(), status: z.enum(['known', 'estimated', 'unknown']) });
