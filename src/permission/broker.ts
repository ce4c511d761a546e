/**
 * The stateful permission broker: one pending answer per agent request, first answer wins
 * across clients, a timeout that fails closed, answers only with options the agent offered,
 * "always" answers become narrow rules, and exactly one audit event per decision. It never
 * throws at the agent: anything malformed is answered `cancelled` (every agent reads that as deny).
 *
 * It also authorises the effects Talaria performs for the agent (`authorize`: fs reads and
 * writes, terminals): same policy, same asks, same audit — with Talaria's own options (allow
 * once / always / reject), since the agent offered none — and an effect the user already
 * allowed through the agent's own request for that tool call is not asked twice (grants.ts),
 * unless it is a forced ask (sensitive file, dangerous command).
 *
 * Paths are resolved (symlinks followed) before the policy sees them (`resolvePaths`).
 *
 * The broker keeps no rules: `onRule` hands an "always" rule to the owner, which must add it to
 * what `getPolicy` returns for later requests to see it.
 */

import { isAllowKind, isOption, isRejectKind, pickOption, resolveAnswer, type PermissionIntent } from './options.js';
import { alwaysRule } from './always-rule.js';
import {
  EFFECT_OPTIONS,
  type AnswerResult,
  type BrokerOptions,
  type EffectRequest,
  type EffectVerdict,
  type PendingPermission,
  type PermissionRequest,
  type SetTimer,
} from './broker-types.js';
import { Grants } from './grants.js';
import { evaluate, type PolicyConfig } from './policy.js';
import { PathIntake } from './intake.js';
import { resolveRealPaths } from './real-paths.js';
import { describeRequest } from './subject.js';
import type {
  PermissionAnswer,
  PermissionDecisionEvent,
  PermissionOption,
  PermissionOutcome,
  PermissionRule,
  PermissionSubject,
  PolicyResult,
} from './types.js';

interface DecideContext {
  /** The agent's options; undefined = an effect, Talaria offers its own. */
  options?: PermissionOption[];
  turnId: string | undefined;
  toolCallOpen?: (toolCallId: string) => boolean;
}

interface Entry {
  pending: PendingPermission;
  promise: Promise<PermissionOutcome>;
  resolve: (o: PermissionOutcome) => void;
  cancelTimer: () => void;
}

type DecidedBy = PermissionDecisionEvent['decidedBy'];

/** How many decided request keys are remembered (duplicates, already_answered). */
const SETTLED_MEMORY = 1000;

const defaultSetTimer: SetTimer = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref?.();
  return () => clearTimeout(t);
};

export class PermissionBroker {
  private readonly entries = new Map<string, Entry>();
  private readonly settled = new Map<string, Promise<PermissionOutcome>>();
  private readonly intake: PathIntake;
  private readonly grants = new Grants();
  /** Decision events of effects, until authorize() hands them to its caller. */
  private readonly effectEvents = new Map<string, PermissionDecisionEvent>();
  private readonly timeoutMs: number;
  private readonly setTimer: SetTimer;
  private readonly now: () => number;

  constructor(private readonly opts: BrokerOptions) {
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.setTimer = opts.setTimer ?? defaultSetTimer;
    this.now = opts.now ?? Date.now;
    this.intake = new PathIntake(
      opts.resolvePaths === false ? undefined : (opts.resolvePaths ?? resolveRealPaths),
      opts.logger,
    );
  }

  /** Paths resolved first (symlinks followed), then `next` — or `cancelled` if a cancel came meanwhile. */
  private resolveThen(
    key: string,
    subject: PermissionSubject,
    turnId: string | undefined,
    next: (s: PermissionSubject) => Promise<PermissionOutcome>,
  ): Promise<PermissionOutcome> {
    return this.intake.run(key, subject, turnId, next, (s, c) =>
      this.settle(key, s, { outcome: 'cancelled' }, c.by, { reason: c.reason }),
    );
  }

  request(req: PermissionRequest): Promise<PermissionOutcome> {
    const key = String(req.requestKey);
    // A duplicate key (the same agent request seen twice) shares the first one's answer.
    const known = this.known(key);
    if (known) return known;

    const params = req.params as { toolCall?: unknown; options?: unknown } | null | undefined;
    let subject: PermissionSubject;
    try {
      subject = describeRequest(req.params, Array.isArray(req.roots) ? req.roots : [], req.known, this.homeOpt());
    } catch (err) {
      // describeRequest is defensive; this only guards against the unforeseen.
      subject = { sessionId: req.sessionId, toolCallId: '', paths: [], roots: [] };
      this.opts.logger?.warn('permission: could not describe request', { err: String(err) });
    }
    if (req.sessionId) subject.sessionId = req.sessionId;
    const options = Array.isArray(params?.options) ? params.options.filter(isOption) : [];

    const malformed =
      typeof params !== 'object' || params === null
        ? 'malformed request: params is not an object'
        : typeof params.toolCall !== 'object' || params.toolCall === null
          ? 'malformed request: no toolCall'
          : options.length === 0
            ? 'malformed request: no valid options offered'
            : undefined;
    if (malformed) return this.settle(key, subject, { outcome: 'cancelled' }, 'policy', { reason: malformed });
    return this.resolveThen(key, subject, req.turnId, (s) => this.decide(key, s, { options, turnId: req.turnId }));
  }

  /**
   * Decides an effect Talaria performs for the agent: policy, then an earlier answer that covers
   * it, then a person (Talaria's own options; timeout = reject). Never rejects.
   */
  authorize(req: EffectRequest): Promise<EffectVerdict> {
    const key = String(req.requestKey);
    const subject: PermissionSubject = { ...req.subject, sessionId: req.sessionId };
    const ctx: DecideContext = { turnId: req.turnId };
    if (req.toolCallOpen) ctx.toolCallOpen = req.toolCallOpen;
    const outcome = this.known(key) ?? this.resolveThen(key, subject, req.turnId, (s) => this.decide(key, s, ctx));
    return outcome.then((o) => {
      const ev = this.effectEvents.get(key);
      this.effectEvents.delete(key);
      const allowed = o.outcome === 'selected' && (o.optionId === 'allow_once' || o.optionId === 'allow_always');
      return { allowed, decidedBy: ev?.decidedBy ?? 'policy', reason: ev?.reason ?? '' };
    });
  }

  private known(key: string): Promise<PermissionOutcome> | undefined {
    return this.entries.get(key)?.promise ?? this.intake.get(key) ?? this.settled.get(key);
  }

  private decide(key: string, subject: PermissionSubject, ctx: DecideContext): Promise<PermissionOutcome> {
    let policy: PolicyResult;
    try {
      policy = evaluate(subject, this.policyFor(subject.sessionId));
    } catch (err) {
      policy = { decision: 'ask', reason: `policy error, asking: ${String(err)}` };
    }
    // An "always" the policy would ignore (a forced ask) is not offered for effects.
    const options = ctx.options ?? EFFECT_OPTIONS.filter((o) => !(policy.forcedAsk && o.kind === 'allow_always'));

    if (policy.decision === 'allow' || policy.decision === 'deny') {
      const intent: PermissionIntent = policy.decision === 'allow' ? 'allow_once' : 'reject_once';
      const opt = pickOption(options, intent);
      const reason = opt
        ? policy.reason
        : `${policy.reason}; no ${policy.decision} option offered, answering cancelled`;
      return this.settle(key, subject, this.outcomeOf(opt), 'policy', {
        reason,
        rule: policy.rule,
        optionKind: opt?.kind,
      });
    }

    // A forced ask (sensitive file, dangerous command) is never covered: the agent wrote the
    // title the user saw when allowing its own request, so Talaria asks in its own words.
    if (!ctx.options && !policy.forcedAsk) {
      const g = this.grants.covering(subject.sessionId, ctx.turnId, subject, ctx.toolCallOpen);
      if (g) {
        const reason = `covered by the answer to ${g.requestKey} (tool call ${g.toolCallId}); the policy alone would ask: ${policy.reason}`;
        return this.settle(key, subject, { outcome: 'selected', optionId: 'allow_once' }, 'grant', {
          reason,
          optionKind: 'allow_once',
        });
      }
    }

    const pending: PendingPermission = {
      requestKey: key,
      sessionId: subject.sessionId,
      toolCallId: subject.toolCallId,
      subject,
      options: [...options],
      createdAt: this.now(),
      policy,
    };
    if (subject.title !== undefined) pending.title = subject.title;
    if (ctx.turnId !== undefined) pending.turnId = ctx.turnId;

    let resolve!: (o: PermissionOutcome) => void;
    const promise = new Promise<PermissionOutcome>((r) => (resolve = r));
    const entry: Entry = { pending, promise, resolve, cancelTimer: () => {} };
    this.entries.set(key, entry);
    if (this.timeoutMs > 0 && Number.isFinite(this.timeoutMs)) {
      entry.cancelTimer = this.setTimer(() => this.expire(key), this.timeoutMs);
    }
    this.safely('onAsk', () => this.opts.onAsk?.({ ...pending }));
    return promise;
  }

  answer(requestKey: string, answer: PermissionAnswer, answeredBy?: string): AnswerResult {
    const key = String(requestKey);
    const entry = this.entries.get(key);
    if (!entry) return { ok: false, reason: this.settled.has(key) ? 'already_answered' : 'unknown' };
    const { options, subject } = entry.pending;

    const picked = resolveAnswer(options, answer);
    if (!picked) return { ok: false, reason: 'not_offered' };
    const { opt, intent } = picked;

    let reason = opt ? `answered ${opt.kind}` : 'answered reject; no reject option offered, answering cancelled';
    let rule: PermissionRule | undefined;
    if (intent === 'allow_always' || intent === 'reject_always') {
      rule = alwaysRule(subject, isRejectKind(intent) ? 'deny' : 'allow');
      if (rule) {
        const r = rule;
        this.safely('onRule', () => this.opts.onRule?.(subject.sessionId, r));
        reason += `; remembered ${r.decision} rule`;
      } else reason += '; nothing narrow enough to remember';
    }
    const outcome = this.outcomeOf(opt);
    this.finish(entry, outcome, 'user', { reason, optionKind: opt?.kind, answeredBy });
    const result: AnswerResult = { ok: true, outcome };
    if (opt) result.optionId = opt.optionId;
    return result;
  }

  /** Answers every pending ask of the session `cancelled`. Returns how many. */
  cancelSession(sessionId: string): number {
    this.grants.forgetSession(sessionId);
    return this.cancelWhere((p) => p.sessionId === sessionId, 'cancel', 'session cancelled');
  }

  /** Answers every pending ask of the turn `cancelled`. Returns how many. */
  cancelTurn(turnId: string): number {
    this.grants.forgetTurn(turnId);
    return this.cancelWhere((p) => p.turnId !== undefined && p.turnId === turnId, 'cancel', 'turn cancelled');
  }

  /** The connection is going away: answer everything `cancelled`. */
  closeAll(): number {
    this.grants.clear();
    return this.cancelWhere(() => true, 'closed', 'connection closed');
  }

  pending(sessionId?: string): PendingPermission[] {
    const out: PendingPermission[] = [];
    for (const e of this.entries.values()) {
      if (sessionId === undefined || e.pending.sessionId === sessionId) out.push({ ...e.pending });
    }
    return out;
  }

  private expire(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    const opt = pickOption(entry.pending.options, 'reject_once');
    const reason = opt
      ? `no answer within ${this.timeoutMs} ms`
      : `no answer within ${this.timeoutMs} ms; no reject option offered, answering cancelled`;
    this.finish(entry, this.outcomeOf(opt), 'timeout', { reason, optionKind: opt?.kind });
  }

  private cancelWhere(
    pred: (p: Pick<PendingPermission, 'sessionId' | 'turnId'>) => boolean,
    by: DecidedBy,
    reason: string,
  ): number {
    // Still resolving paths: they settle `cancelled` as soon as they get there.
    const n = this.intake.cancelWhere(pred, by, reason);
    const hits = [...this.entries.values()].filter((e) => pred(e.pending));
    for (const e of hits) this.finish(e, { outcome: 'cancelled' }, by, { reason });
    return n + hits.length;
  }

  private finish(entry: Entry, outcome: PermissionOutcome, by: DecidedBy, d: Details): void {
    const key = entry.pending.requestKey;
    if (this.entries.get(key) !== entry) return;
    this.entries.delete(key);
    entry.cancelTimer();
    this.remember(key, entry.promise);
    this.emit(key, entry.pending.subject, outcome, by, d);
    const { subject, sessionId, turnId } = entry.pending;
    if (by === 'user' && !subject.effect && outcome.outcome === 'selected' && isAllowKind(d.optionKind)) {
      this.grants.add(sessionId, turnId, key, subject);
    }
    entry.resolve(outcome);
  }

  private settle(
    key: string,
    subject: PermissionSubject,
    outcome: PermissionOutcome,
    by: DecidedBy,
    d: Details,
  ): Promise<PermissionOutcome> {
    const promise = Promise.resolve(outcome);
    this.remember(key, promise);
    this.emit(key, subject, outcome, by, d);
    return promise;
  }

  private emit(key: string, subject: PermissionSubject, outcome: PermissionOutcome, by: DecidedBy, d: Details): void {
    const ev: PermissionDecisionEvent = {
      requestKey: key,
      sessionId: subject.sessionId,
      toolCallId: subject.toolCallId,
      subject,
      outcome,
      decidedBy: by,
      reason: d.reason,
      at: this.now(),
    };
    if (outcome.outcome === 'selected' && d.optionKind !== undefined) ev.optionKind = d.optionKind;
    if (d.answeredBy !== undefined) ev.answeredBy = d.answeredBy;
    if (d.rule !== undefined) ev.rule = d.rule;
    if (subject.effect) this.effectEvents.set(key, ev);
    this.safely('onDecision', () => this.opts.onDecision(ev));
  }

  private remember(key: string, promise: Promise<PermissionOutcome>): void {
    this.settled.set(key, promise);
    if (this.settled.size > SETTLED_MEMORY) {
      const oldest = this.settled.keys().next().value;
      if (oldest !== undefined) this.settled.delete(oldest);
    }
  }

  private outcomeOf(opt: PermissionOption | undefined): PermissionOutcome {
    return opt ? { outcome: 'selected', optionId: opt.optionId } : { outcome: 'cancelled' };
  }

  private policyFor(sessionId: string): PolicyConfig {
    try {
      const p = this.opts.getPolicy(sessionId);
      if (p && typeof p === 'object') return p;
    } catch (err) {
      this.opts.logger?.warn('permission: getPolicy failed; asking', { sessionId, err: String(err) });
    }
    return { mode: 'ask', rules: [] };
  }

  private homeOpt(): { homeDir?: string } {
    return this.opts.homeDir !== undefined ? { homeDir: this.opts.homeDir } : {};
  }

  /** Callbacks belong to other layers; their failures must not reach the agent. */
  private safely(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.opts.logger?.error(`permission: ${what} callback threw`, { err: String(err) });
    }
  }
}

interface Details {
  reason: string;
  rule?: PermissionRule | undefined;
  optionKind?: string | undefined;
  answeredBy?: string | undefined;
}
