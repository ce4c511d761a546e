/**
 * The stateful permission broker: one pending answer per agent request, first answer wins
 * across clients, a timeout that fails closed, answers only with options the agent offered,
 * "always" answers become narrow rules, and exactly one audit event per decision. It never
 * throws at the agent: anything malformed is answered `cancelled` (every agent reads that as deny).
 *
 * The broker keeps no rules: `onRule` hands an "always" rule to the owner, which must add it to
 * what `getPolicy` returns for later requests to see it.
 */

import type { Logger } from '../protocol/types.js';
import { isAllowKind, isIntent, isOption, isRejectKind, pickOption, type PermissionIntent } from './options.js';
import { alwaysRule } from './always-rule.js';
import { evaluate, type PolicyConfig } from './policy.js';
import { describeRequest, type KnownToolCall } from './subject.js';
import type {
  PermissionAnswer,
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
  private readonly timeoutMs: number;
  private readonly setTimer: SetTimer;
  private readonly now: () => number;

  constructor(private readonly opts: BrokerOptions) {
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.setTimer = opts.setTimer ?? defaultSetTimer;
    this.now = opts.now ?? Date.now;
  }

  request(req: PermissionRequest): Promise<PermissionOutcome> {
    const key = String(req.requestKey);
    // A duplicate key (the same agent request seen twice) shares the first one's answer.
    const live = this.entries.get(key);
    if (live) return live.promise;
    const done = this.settled.get(key);
    if (done) return done;

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

    let policy: PolicyResult;
    try {
      policy = evaluate(subject, this.policyFor(subject.sessionId));
    } catch (err) {
      policy = { decision: 'ask', reason: `policy error, asking: ${String(err)}` };
    }

    if (policy.decision === 'allow' || policy.decision === 'deny') {
      const intent: PermissionIntent = policy.decision === 'allow' ? 'allow_once' : 'reject_once';
      const opt = pickOption(options, intent);
      const reason = opt ? policy.reason : `${policy.reason}; no ${policy.decision} option offered, answering cancelled`;
      return this.settle(key, subject, this.outcomeOf(opt), 'policy', { reason, rule: policy.rule, optionKind: opt?.kind });
    }

    const pending: PendingPermission = {
      requestKey: key,
      sessionId: subject.sessionId,
      toolCallId: subject.toolCallId,
      subject,
      options,
      createdAt: this.now(),
      policy,
    };
    if (subject.title !== undefined) pending.title = subject.title;
    if (req.turnId !== undefined) pending.turnId = req.turnId;

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

    let opt: PermissionOption | undefined;
    let intent: PermissionIntent | undefined;
    if (answer && typeof (answer as { optionId?: unknown }).optionId === 'string') {
      const id = (answer as { optionId: string }).optionId;
      opt = options.find((o) => o.optionId === id);
      if (!opt) return { ok: false, reason: 'not_offered' };
      if (opt.kind === 'allow_always' || opt.kind === 'reject_always') intent = opt.kind;
    } else {
      const choice = (answer as { choice?: unknown } | undefined)?.choice;
      if (!isIntent(choice)) return { ok: false, reason: 'not_offered' };
      intent = choice;
      opt = pickOption(options, choice);
      // An allow with nothing to allow cannot be honoured; a reject with no reject option is
      // answered `cancelled`, which agents read as deny.
      if (!opt && isAllowKind(choice)) return { ok: false, reason: 'not_offered' };
    }

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
    return this.cancelWhere((p) => p.sessionId === sessionId, 'cancel', 'session cancelled');
  }

  /** Answers every pending ask of the turn `cancelled`. Returns how many. */
  cancelTurn(turnId: string): number {
    return this.cancelWhere((p) => p.turnId !== undefined && p.turnId === turnId, 'cancel', 'turn cancelled');
  }

  /** The connection is going away: answer everything `cancelled`. */
  closeAll(): number {
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
    const reason = opt ? `no answer within ${this.timeoutMs} ms` : `no answer within ${this.timeoutMs} ms; no reject option offered, answering cancelled`;
    this.finish(entry, this.outcomeOf(opt), 'timeout', { reason, optionKind: opt?.kind });
  }

  private cancelWhere(pred: (p: PendingPermission) => boolean, by: DecidedBy, reason: string): number {
    const hits = [...this.entries.values()].filter((e) => pred(e.pending));
    for (const e of hits) this.finish(e, { outcome: 'cancelled' }, by, { reason });
    return hits.length;
  }

  private finish(entry: Entry, outcome: PermissionOutcome, by: DecidedBy, d: Details): void {
    const key = entry.pending.requestKey;
    if (this.entries.get(key) !== entry) return;
    this.entries.delete(key);
    entry.cancelTimer();
    this.remember(key, entry.promise);
    this.emit(key, entry.pending.subject, outcome, by, d);
    entry.resolve(outcome);
  }

  private settle(key: string, subject: PermissionSubject, outcome: PermissionOutcome, by: DecidedBy, d: Details): Promise<PermissionOutcome> {
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
