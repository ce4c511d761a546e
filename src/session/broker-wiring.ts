import type { Logger } from '../protocol/types.js';
import { PermissionBroker } from '../permission/broker.js';
import type {
  PermissionDecisionEvent,
  PermissionMode,
  PermissionRule,
  PermissionSubject,
} from '../permission/types.js';
import type { ResolvePaths } from '../permission/real-paths.js';
import type { Session } from './session.js';

export interface SessionBrokerOptions {
  /** The session a request belongs to (its policy, and where its events go). */
  lookup: (sessionId: string) => Session | undefined;
  /** Policy for a request whose session is unknown. */
  fallback: { mode?: PermissionMode; rules?: PermissionRule[] };
  timeoutMs?: number;
  now?: () => number;
  logger?: Logger;
  onDecision?: (ev: PermissionDecisionEvent) => void;
  onRule?: (sessionId: string, rule: PermissionRule) => void;
  /** false: judge paths by name only (a replay: the recorded paths are not on this machine). */
  resolvePaths?: ResolvePaths | false;
}

/**
 * A permission broker wired to sessions: policy from the session, `permission.asked` and
 * `permission.decided` emitted on the session, "always" rules added to it. Live clients and
 * replays share this wiring so their events are identical.
 */
export function createSessionBroker(o: SessionBrokerOptions): PermissionBroker {
  return new PermissionBroker({
    getPolicy: (sessionId) =>
      o.lookup(sessionId)?.policy() ?? { mode: o.fallback.mode ?? 'ask', rules: o.fallback.rules ?? [] },
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    ...(o.now ? { now: o.now } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.resolvePaths !== undefined ? { resolvePaths: o.resolvePaths } : {}),
    onAsk: (p) => {
      o.lookup(p.sessionId)?.emit('permission.asked', {
        requestKey: p.requestKey,
        toolCallId: p.toolCallId,
        ...(p.title !== undefined ? { title: p.title } : {}),
        options: p.options,
        // As the agent named it: a replay (which cannot resolve paths) emits the same event.
        subject: named(p.subject),
      });
    },
    onDecision: (ev) => {
      // An effect allowed without asking (a read, an accept-edits write, a covered write) goes to
      // the audit log only: one event per file read would drown every UI.
      if (!quietEffect(ev))
        o.lookup(ev.sessionId)?.emit('permission.decided', {
          requestKey: ev.requestKey,
          toolCallId: ev.toolCallId,
          outcome: ev.outcome,
          decidedBy: ev.decidedBy,
          reason: ev.reason,
          ...(ev.answeredBy ? { answeredBy: ev.answeredBy } : {}),
          ...(ev.rule ? { rule: ev.rule } : {}),
        });
      o.onDecision?.(ev);
    },
    onRule: (sessionId, rule) => {
      o.lookup(sessionId)?.rules.push(rule);
      o.onRule?.(sessionId, rule);
    },
  });
}

function named(subject: PermissionSubject): PermissionSubject {
  const { realPaths: _paths, realRoots: _roots, ...rest } = subject;
  return rest;
}

function quietEffect(ev: PermissionDecisionEvent): boolean {
  const allowed =
    ev.outcome.outcome === 'selected' && (ev.optionKind === 'allow_once' || ev.optionKind === 'allow_always');
  return ev.subject?.effect !== undefined && allowed && (ev.decidedBy === 'policy' || ev.decidedBy === 'grant');
}
