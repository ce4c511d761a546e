/** The broker's public shapes (broker.ts holds the behaviour). */
import type { Logger } from '../protocol/types.js';
import type { PolicyConfig } from './policy.js';
import type { ResolvePaths } from './real-paths.js';
import type { KnownToolCall } from './subject.js';
import type {
  PermissionDecisionEvent,
  PermissionOption,
  PermissionOutcome,
  PermissionRule,
  PermissionSubject,
  PolicyResult,
} from './types.js';

/** An ask waiting for a person (what onAsk / pending() hand out). */
export interface PendingPermission {
  requestKey: string;
  sessionId: string;
  toolCallId: string;
  subject: PermissionSubject;
  options: PermissionOption[];
  title?: string;
  createdAt: number;
  turnId?: string;
  /** Why it asks (mode, rule, or a forced ask for a sensitive path / dangerous command). */
  policy: PolicyResult;
}

export interface PermissionRequest {
  /** Unique per agent request (e.g. connection id + JSON-RPC id). */
  requestKey: string;
  sessionId: string;
  /** The raw `session/request_permission` params. */
  params: unknown;
  /** Session roots (cwd + additional directories). */
  roots: string[];
  /** The already-announced tool call with this id, when the caller has one. */
  known?: KnownToolCall;
  turnId?: string;
}

/** An effect Talaria is about to perform for the agent (see session/effects.ts). */
export interface EffectRequest {
  requestKey: string;
  sessionId: string;
  /** With `effect`, `toolKind`, `title`, the paths (and their real paths) or the command. */
  subject: PermissionSubject;
  turnId?: string;
  /** Whether a tool call is still running: an earlier answer only covers an open tool call. */
  toolCallOpen?: (toolCallId: string) => boolean;
}

export interface EffectVerdict {
  allowed: boolean;
  decidedBy: PermissionDecisionEvent['decidedBy'];
  reason: string;
}

/** What Talaria offers when it asks about an effect itself (ids are the kinds). */
export const EFFECT_OPTIONS: readonly PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
];

export type AnswerResult =
  | { ok: true; optionId?: string; outcome: PermissionOutcome }
  | { ok: false; reason: 'unknown' | 'already_answered' | 'not_offered' };

/** Schedules `fn` after `ms`; returns a canceller. */
export type SetTimer = (fn: () => void, ms: number) => () => void;

export interface BrokerOptions {
  getPolicy: (sessionId: string) => PolicyConfig;
  /** Default 60 000 (Hermes denies on its own at 60 s). 0 or Infinity: no timeout. */
  timeoutMs?: number;
  setTimer?: SetTimer;
  onDecision: (ev: PermissionDecisionEvent) => void;
  onAsk?: (pending: PendingPermission) => void;
  onRule?: (sessionId: string, rule: PermissionRule) => void;
  now?: () => number;
  logger?: Logger;
  /** For `~` expansion in request paths (default os.homedir()). */
  homeDir?: string;
  /** Resolves symlinks in a subject's paths before the policy runs (default resolveRealPaths); false: names only. */
  resolvePaths?: ResolvePaths | false;
}
