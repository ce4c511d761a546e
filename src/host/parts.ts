/**
 * What the host's workers (auth-mark, crash, follow, reaper, reseed, restore, start, steer,
 * watchdog) see of their owners, AgentSlot (slot.ts) and SlotSessions (ops.ts): types only. The
 * owners import the workers and satisfy these (`implements`); a worker never imports its owner,
 * so each file reads on its own. The records below both, Generation and SessionBinding, import
 * no worker and no owner.
 */
import type { PermissionDecisionEvent, PermissionMode, PermissionRule } from '../permission/types.js';
import type { FlowGate } from '../protocol/flow-gate.js';
import type { Frame, Logger, ProtocolErrorEvent } from '../protocol/types.js';
import type { AppliedQuirks, QuirkChoice } from '../providers/quirks/index.js';
import type { Provider } from '../providers/types.js';
import type { SessionHooks } from '../session/hooks.js';
import type { Session } from '../session/session.js';
import type { BackoffPolicy, CrashTracker } from './backoff.js';
import type { SessionBinding } from './binding.js';
import type { AgentKey, ExitReason, HostEventName, HostEventOf } from './events.js';
import type { Generation } from './generation.js';

export type Emit = <K extends HostEventName>(type: K, body: Omit<HostEventOf<K>, 'type' | 'seq' | 'at'>) => void;

export interface SlotConfig {
  idleMs: number;
  stallMs: number;
  cancelGraceMs: number;
  terminateGraceMs: number;
  setupTimeoutMs: number;
  maxPromptBytes?: number;
  backoff: BackoffPolicy;
  /** What an earlier process of this agent said it is (the store's agentInfo): the quirk set before a process exists. */
  learned?: QuirkChoice;
  permission?: { mode?: PermissionMode; rules?: PermissionRule[]; timeoutMs?: number };
  onFrame?: (key: AgentKey, frame: Frame) => void;
  onSession?: (session: Session, key: AgentKey) => void;
  onProtocolError?: (key: AgentKey, e: ProtocolErrorEvent) => void;
  onPermissionDecision?: (e: PermissionDecisionEvent) => void;
  onRule?: (sessionId: string, rule: PermissionRule) => void;
  /** Where auth_required marks go (host/auth-mark.ts); absent: none are kept. */
  authHome?: string;
  flowGate?: FlowGate;
}

/** What the workers read of a slot (AgentSlot); each takes the Pick it uses. */
export interface SlotPart {
  readonly key: AgentKey;
  readonly provider: Provider;
  readonly cfg: SlotConfig;
  readonly logger: Logger;
  readonly emit: Emit;
  readonly label: string;
  /** The quirks of the agent (they change once a process said what it is). */
  readonly quirks: AppliedQuirks;
  readonly bindings: Map<string, SessionBinding>;
  /** Live processes, the current one and any still draining. */
  readonly gens: ReadonlySet<Generation>;
  readonly crashes: CrashTracker;
  closeGen(gen: Generation, reason: ExitReason): Promise<void>;
}

export type ReqOpts = { signal?: AbortSignal; timeoutMs?: number };

/** What the workers use of a slot's session side (SlotSessions). */
export interface SessionsPart {
  readonly slot: SlotPart;
  hooks(): SessionHooks;
  promptCaps(): { image: boolean; audio: boolean; embeddedContext: boolean };
  setupParams(
    s: Pick<Session, 'cwd' | 'additionalDirectories'>,
    mcpServers: unknown[],
    extra?: Record<string, unknown>,
  ): Record<string, unknown>;
  /** `owner`: the session the request is for (null: none yet, e.g. session/new). */
  callOn<T = unknown>(
    gen: Generation,
    method: string,
    params: unknown,
    opts?: ReqOpts,
    owner?: string | null,
  ): Promise<T>;
  attach(b: SessionBinding, gen: Generation): void;
  restoreChoices(b: SessionBinding, gen: Generation): Promise<void>;
}
