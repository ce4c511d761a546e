/**
 * Requests whose paths are being resolved (symlinks followed) before the policy sees them. A
 * cancel that arrives meanwhile is remembered and wins: the request settles `cancelled` as
 * soon as the resolution ends, instead of becoming an ask nobody will answer.
 */
import type { Logger } from '../protocol/types.js';
import type { ResolvePaths } from './real-paths.js';
import type { PermissionDecisionEvent, PermissionOutcome, PermissionSubject } from './types.js';

type DecidedBy = PermissionDecisionEvent['decidedBy'];
export interface Cancelled {
  by: DecidedBy;
  reason: string;
}

interface Intake {
  sessionId: string;
  turnId: string | undefined;
  promise: Promise<PermissionOutcome>;
  cancelled?: Cancelled;
}

export class PathIntake {
  private readonly inFlight = new Map<string, Intake>();

  constructor(
    private readonly resolve: ResolvePaths | undefined,
    private readonly logger?: Logger,
  ) {}

  get(key: string): Promise<PermissionOutcome> | undefined {
    return this.inFlight.get(key)?.promise;
  }

  /** Resolves the subject's paths (when it has any), then `next` — or `cancelled` if a cancel came first. */
  run(
    key: string,
    subject: PermissionSubject,
    turnId: string | undefined,
    next: (s: PermissionSubject) => Promise<PermissionOutcome>,
    cancelled: (s: PermissionSubject, c: Cancelled) => Promise<PermissionOutcome>,
  ): Promise<PermissionOutcome> {
    const resolve = this.resolve;
    if (!resolve || subject.paths.length === 0) return next(subject);
    const intake = { sessionId: subject.sessionId, turnId } as Intake;
    intake.promise = Promise.resolve()
      .then(() => resolve(subject))
      .catch((err: unknown) => {
        this.logger?.warn('permission: could not resolve paths; judging names only', { err: String(err) });
        return subject;
      })
      .then((s) => {
        this.inFlight.delete(key);
        return intake.cancelled ? cancelled(s, intake.cancelled) : next(s);
      });
    this.inFlight.set(key, intake);
    return intake.promise;
  }

  /** Marks matching requests cancelled; returns how many. */
  cancelWhere(
    pred: (p: { sessionId: string; turnId?: string | undefined }) => boolean,
    by: DecidedBy,
    reason: string,
  ): number {
    let n = 0;
    for (const i of this.inFlight.values()) {
      if (i.cancelled || !pred({ sessionId: i.sessionId, turnId: i.turnId })) continue;
      i.cancelled = { by, reason };
      n++;
    }
    return n;
  }
}
