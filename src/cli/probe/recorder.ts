/**
 * Every frame of the probe, in wire order, with a timestamp and the check it belongs to; each
 * one is validated by the wire checker as it arrives. Checks wait on frames here (conditions,
 * never sleeps) and read their evidence from it.
 */
import { createWireChecker, formatViolation, type Violation } from '../../protocol/wire-check.js';
import type { Direction, Frame, ProtocolErrorEvent, RawMessage } from '../../protocol/types.js';
import type { ProbeWireSummary } from './types.js';

export interface Recorded {
  /** Position among all recorded frames. */
  i: number;
  /** ms since the recorder was created. */
  at: number;
  dir: Direction;
  msg: RawMessage;
  check: string;
}

type Update = { sessionUpdate?: unknown; [k: string]: unknown };

interface Waiter {
  from: number;
  pred: (r: Recorded) => boolean;
  resolve: (r: Recorded | undefined) => void;
}

export class Recorder {
  readonly frames: Recorded[] = [];
  readonly violations: (Violation & { check: string })[] = [];
  readonly protocolErrors: { kind: string; preview: string; check: string }[] = [];
  /** The check running now (violations and frames are attributed to it). */
  check = 'setup';
  private readonly checker = createWireChecker();
  private readonly waiters = new Set<Waiter>();
  private readonly t0 = performance.now();
  private checkerFailure: string | undefined;

  now(): number {
    return Math.round((performance.now() - this.t0) * 10) / 10;
  }

  readonly onFrame = (f: Frame): void => {
    const r: Recorded = { i: this.frames.length, at: this.now(), dir: f.dir, msg: f.msg, check: this.check };
    this.frames.push(r);
    try {
      for (const v of this.checker.check(f)) this.violations.push({ ...v, check: this.check });
    } catch (e) {
      // The checker must never take the probe down; say so once in the report instead.
      this.checkerFailure ??= e instanceof Error ? e.message : String(e);
    }
    for (const w of [...this.waiters]) {
      if (r.i >= w.from && w.pred(r)) {
        this.waiters.delete(w);
        w.resolve(r);
      }
    }
  };

  readonly onProtocolError = (e: ProtocolErrorEvent): void => {
    this.protocolErrors.push({ kind: e.kind, preview: e.preview.slice(0, 200), check: this.check });
  };

  mark(): number {
    return this.frames.length;
  }

  /** The first frame at or after `from` matching `pred`, waiting for it up to `timeoutMs` (undefined then). */
  waitFor(
    pred: (r: Recorded) => boolean,
    from: number,
    timeoutMs: number,
    until?: Promise<unknown>,
  ): Promise<Recorded | undefined> {
    for (let i = from; i < this.frames.length; i++) if (pred(this.frames[i]!)) return Promise.resolve(this.frames[i]);
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), timeoutMs);
      const w: Waiter = { from, pred, resolve: (r) => done(r) };
      const done = (r: Recorded | undefined): void => {
        clearTimeout(timer);
        this.waiters.delete(w);
        resolve(r);
      };
      this.waiters.add(w);
      // Stop waiting when something else ends first (e.g. the turn's response).
      void until?.then(
        () => done(undefined),
        () => done(undefined),
      );
    });
  }

  /** Frames from `from` to `to` (exclusive; default: now). */
  slice(from: number, to?: number): Recorded[] {
    return this.frames.slice(from, to);
  }

  summary(): ProbeWireSummary {
    const s: ProbeWireSummary = {
      stats: this.checker.stats,
      violations: this.violations.map((v) => `[${v.check}] ${formatViolation(v)}`),
      unknownMethods: this.checker.unknownMethods.map((u) => ({ ...u, check: this.frames[u.index]?.check ?? '' })),
      protocolErrors: [...this.protocolErrors],
    };
    if (this.checkerFailure) s.violations.push(`(the wire checker itself failed: ${this.checkerFailure})`);
    return s;
  }

  violationsOf(check: string): number {
    return this.violations.filter((v) => v.check === check).length;
  }
}

// ---- frame predicates and accessors (loose JSON: agents send what they send) ----------------

export const isRequest = (r: Recorded, method: string, dir: Direction = 'client->agent'): boolean =>
  r.dir === dir && r.msg.method === method && r.msg.id !== undefined;

export const isResponseTo = (r: Recorded, req: Recorded): boolean =>
  r.dir !== req.dir && r.msg.method === undefined && r.msg.id === req.msg.id;

/** The `update` of a session/update notification for `sessionId`, or undefined. */
export function updateOf(r: Recorded, sessionId?: string): Update | undefined {
  if (r.dir !== 'agent->client' || r.msg.method !== 'session/update' || r.msg.id !== undefined) return undefined;
  const p = r.msg.params as { sessionId?: unknown; update?: unknown } | undefined;
  if (sessionId !== undefined && p?.sessionId !== sessionId) return undefined;
  const u = p?.update;
  return typeof u === 'object' && u !== null ? (u as Update) : undefined;
}

export function kindOf(r: Recorded, sessionId?: string): string | undefined {
  const u = updateOf(r, sessionId);
  return typeof u?.sessionUpdate === 'string' ? u.sessionUpdate : undefined;
}

/** Text of a chunk update's content block ('' for non-text). */
export function chunkText(u: Update): string {
  const c = u.content as { type?: unknown; text?: unknown } | undefined;
  return c?.type === 'text' && typeof c.text === 'string' ? c.text : '';
}

/** A compact one-line rendering of a frame for evidence. */
export function brief(r: Recorded, max = 160): string {
  const arrow = r.dir === 'client->agent' ? '→' : '←';
  const m = r.msg;
  let what: string;
  if (m.method === 'session/update') {
    const u = (m.params as { update?: Record<string, unknown> } | undefined)?.update ?? {};
    const { sessionUpdate, ...rest } = u;
    what = `update ${String(sessionUpdate)} ${JSON.stringify(rest)}`;
  } else if (m.method !== undefined)
    what = `${m.method}${m.id !== undefined ? ` #${String(m.id)}` : ''} ${JSON.stringify(m.params ?? null)}`;
  else if (m.error !== undefined) what = `error #${String(m.id)} ${JSON.stringify(m.error)}`;
  else what = `result #${String(m.id)} ${JSON.stringify(m.result ?? null)}`;
  const line = `${arrow} ${r.at.toFixed(0)}ms ${what}`;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export const ms = (n: number | undefined): string => (n === undefined ? '?' : `${Math.round(n)} ms`);
