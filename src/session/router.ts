/**
 * The session router of one connection (DESIGN "One frame, one road"): every frame the transport
 * taps goes to the session it belongs to, so each session's wire log is its own traffic and
 * exports as a replayable fixture. JSON-RPC ids restart with every agent process; one router
 * serves one connection, so an answer is always matched against that connection's requests.
 *
 * - Session-scoped frames carry `params.sessionId` (prompt, load, cancel, set_*, session/update,
 *   permission/fs/terminal requests); answers follow their request by id.
 * - `session/new` and `session/fork` name the session only in their answer: the request is held
 *   until then and filed under the new id, ahead of any early updates for it.
 * - The handshake (`initialize`, `authenticate` and their answers) opens every session's log:
 *   each session receives it before its first frame on this connection (a session moved to a new
 *   process gets that process's handshake before its `session/load`).
 * - Any other frame without a session (`session/list`, extensions) goes to every session
 *   attached here; with none attached it belongs to no log.
 * - Frames for an id not attached yet wait in a bounded buffer (early-frames.ts) and reach the
 *   session, updates included, when it attaches.
 */
import type { Frame, JsonRpcId, Logger, RawMessage } from '../protocol/types.js';
import { EarlyFrames, type EarlyLimits } from './early-frames.js';
import { asRecord } from '../os/record.js';

export type Update = { sessionUpdate: string; [k: string]: unknown };

/** Where a session's frames go: its wire log (every frame) and its thread (the updates). */
export interface FrameTarget {
  receiveFrame(frame: Frame): void;
  receiveUpdate(update: Update): void;
  /** The read that brought the last updates is handled (a target that batches flushes here). */
  readEnd?(): void;
}

interface Pending {
  method: string;
  sid?: string;
  /** session/new|fork: the request frame, filed once the answer names the session. */
  held?: Frame;
}

function sidOf(msg: RawMessage): string | undefined {
  const s = asRecord(msg.params)?.sessionId;
  return typeof s === 'string' && s !== '' ? s : undefined;
}

/** The update a `session/update` notification carries, if it is one. */
export function updateOf(frame: Frame): Update | undefined {
  const m = frame.msg;
  if (frame.dir !== 'agent->client' || m.method !== 'session/update' || m.id !== undefined) return undefined;
  const u = asRecord(asRecord(m.params)?.update);
  return u && typeof u.sessionUpdate === 'string' ? (u as Update) : undefined;
}

export class SessionRouter<T extends FrameTarget = FrameTarget> {
  /** Sessions attached to this connection, by ACP session id. */
  readonly sessions = new Map<string, T>();
  readonly early: EarlyFrames;
  private readonly handshake: Frame[] = [];
  /** How much of the handshake each session has received. */
  private readonly sent = new WeakMap<T, number>();
  private readonly out = new Map<JsonRpcId | undefined, Pending>();
  private readonly inbound = new Map<JsonRpcId | undefined, string | undefined>();
  private readonly ignored = new Set<string>();
  /** The last target caught up, at this handshake length: send()'s fast path. */
  private current: T | undefined;
  private currentAt = 0;

  constructor(o: { logger?: Logger; early?: Partial<EarlyLimits> } = {}) {
    this.early = new EarlyFrames(o.early, (sessionId, reason) =>
      o.logger?.warn(
        reason === 'evicted'
          ? 'frames for an unknown session were dropped (too many unknown sessions)'
          : 'frames for an unknown session were dropped (buffer full)',
        {
          sessionId,
        },
      ),
    );
  }

  /** The transport's tap: every frame, both directions, in wire order. */
  frame(frame: Frame): void {
    const msg = frame.msg;
    const hasId = msg.id !== undefined;
    const method = msg.method;
    if (frame.dir === 'client->agent') {
      if (method === undefined) {
        // Our answer to an agent request: it belongs where the request did.
        const sid = this.inbound.get(msg.id);
        this.inbound.delete(msg.id);
        return this.deliver(sid, frame);
      }
      if (method === 'initialize' || method === 'authenticate') {
        this.handshake.push(frame);
        if (hasId) this.out.set(msg.id, { method });
        return;
      }
      if (method === 'session/new' || method === 'session/fork') {
        if (hasId) this.out.set(msg.id, { method, held: frame });
        return;
      }
      const sid = sidOf(msg);
      if (hasId) this.out.set(msg.id, sid ? { method, sid } : { method });
      return this.deliver(sid, frame);
    }
    if (method !== undefined) {
      const sid = sidOf(msg);
      if (hasId) this.inbound.set(msg.id, sid);
      return this.deliver(sid, frame);
    }
    const p = this.out.get(msg.id);
    if (!p) return this.deliver(undefined, frame);
    this.out.delete(msg.id);
    if (p.method === 'initialize' || p.method === 'authenticate') {
      this.handshake.push(frame);
      return;
    }
    if (p.held) {
      const sid = asRecord(msg.result)?.sessionId;
      // A failed setup belongs to no session.
      if (typeof sid !== 'string' || sid === '') return;
      // Early updates for the new session (sent before this answer) wait already: the request goes first.
      if (this.sessions.has(sid)) this.deliver(sid, p.held);
      else if (!this.ignored.has(sid)) this.early.add(sid, p.held, true);
      return this.deliver(sid, frame);
    }
    return this.deliver(p.sid, frame);
  }

  /** The frames of one read were delivered: sessions reduce what they held for it. */
  readEnd(): void {
    for (const t of this.sessions.values()) t.readEnd?.();
  }

  /** A live `session/update` (the transport diverts it right after tapping its frame). */
  update(sessionId: string, update: Update): void {
    this.sessions.get(sessionId)?.receiveUpdate(update);
  }

  /** From now on `id`'s frames go to `target`: first the handshake, then whatever waited for it. */
  attach(id: string, target: T): void {
    this.sessions.set(id, target);
    this.catchUp(target);
    for (const f of this.early.take(id)) {
      target.receiveFrame(f);
      const u = updateOf(f);
      if (u) target.receiveUpdate(u);
    }
    target.readEnd?.(); // what waited is in the thread when attach returns
  }

  /** Stops delivering to `id` (only if `target` is still the one attached, when given). */
  detach(id: string, target?: T): void {
    if (target === undefined || this.sessions.get(id) === target) this.sessions.delete(id);
  }

  /** A session id that must never be routed (Hermes' stray resume sessions). */
  ignore(id: string): void {
    this.ignored.add(id);
    this.early.discard(id);
  }

  private deliver(sid: string | undefined, frame: Frame): void {
    if (sid === undefined) {
      for (const t of this.sessions.values()) this.send(t, frame);
      return;
    }
    const t = this.sessions.get(sid);
    if (t) this.send(t, frame);
    else if (!this.ignored.has(sid)) this.early.add(sid, frame);
  }

  private send(t: T, frame: Frame): void {
    // Per frame: the session that got the last one is known to be caught up (no WeakMap lookup).
    if (t !== this.current || this.currentAt !== this.handshake.length) this.catchUp(t);
    t.receiveFrame(frame);
  }

  /** The handshake frames `t` has not received yet (a new connection, or an authenticate since). */
  private catchUp(t: T): void {
    this.current = t;
    this.currentAt = this.handshake.length;
    const n = this.sent.get(t) ?? 0;
    if (n === this.handshake.length) return;
    for (let i = n; i < this.handshake.length; i++) t.receiveFrame(this.handshake[i]!);
    this.sent.set(t, this.handshake.length);
  }
}
