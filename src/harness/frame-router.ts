/**
 * Attributing one agent process's frames to the sessions it serves, so each stored session's
 * wire log holds its own traffic (and exports as a replayable fixture).
 *
 * - Session-scoped frames carry `params.sessionId` (prompt, load, cancel, set_*, session/update,
 *   permission/fs/terminal requests); responses are matched to their request by JSON-RPC id.
 * - `session/new` and `session/fork` name the session only in their answer: the request is held
 *   until then and filed under the new id, ahead of any early updates for it.
 * - Connection-level frames: the handshake (`initialize`, `authenticate`) is kept per connection
 *   and written at the head of each session's log the first time that session is seen on that
 *   connection (a respawn starts a new connection, so a reloaded session's log gets the new
 *   handshake before its `session/load`). Any other frame without a session (`session/list`,
 *   extensions) goes to every session currently bound on that connection; with none bound it is
 *   not stored.
 * - Frames for a session nobody claimed yet (it is still opening) wait in a bounded buffer.
 *
 * Limitation: JSON-RPC ids restart per process. While a retiring process drains next to its
 * replacement (same provider/profile/workspace) a response could be matched to the wrong
 * request; session-scoped notifications and requests are never affected.
 */
import type { Frame, JsonRpcId, Logger, RawMessage } from '../protocol/types.js';

export type FrameSink = (frame: Frame) => void;

/** What the agent said about itself in `initialize`. */
export interface ConnectionInfo {
  agentInfo?: { name?: string; title?: string; version?: string; [k: string]: unknown };
  protocolVersion?: unknown;
  agentCapabilities?: Record<string, unknown>;
}

interface Pending {
  method: string;
  sid?: string;
  /** session/new|fork: the request frame, filed once the answer names the session. */
  held?: Frame;
}

interface Conn {
  n: number;
  handshake: Frame[];
  out: Map<JsonRpcId | undefined, Pending>;
  inbound: Map<JsonRpcId | undefined, string | undefined>;
  info: ConnectionInfo;
}

interface Claim {
  sink: FrameSink;
  conn: number;
  sent: number;
}

const MAX_WAITING_SESSIONS = 64;
const MAX_WAITING_FRAMES = 50_000;
const KEPT_CONNECTIONS = 3;

const obj = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const sidOf = (msg: RawMessage): string | undefined => {
  const s = obj(msg.params)?.sessionId;
  return typeof s === 'string' && s !== '' ? s : undefined;
};

/** The router of one agent key (provider, profile, workspace): one process at a time. */
export class ConnectionRouter {
  private conns: Conn[] = [];
  private seq = 0;
  private readonly claims = new Map<string, Claim>();
  private readonly waiting = new Map<string, Frame[]>();

  constructor(private readonly logger?: Logger) {}

  /** The newest connection's initialize answer (undefined before any). */
  get info(): ConnectionInfo | undefined {
    return this.conns[this.conns.length - 1]?.info;
  }

  private current(): Conn {
    return this.conns[this.conns.length - 1] ?? this.newConn();
  }

  private newConn(): Conn {
    const c: Conn = { n: ++this.seq, handshake: [], out: new Map(), inbound: new Map(), info: {} };
    this.conns.push(c);
    if (this.conns.length > KEPT_CONNECTIONS) this.conns.shift();
    return c;
  }

  route(frame: Frame): void {
    const msg = frame.msg;
    const hasId = msg.id !== undefined;
    const method = typeof msg.method === 'string' ? msg.method : undefined;
    if (frame.dir === 'client->agent') {
      if (method === 'initialize' && hasId) {
        const c = this.newConn();
        c.handshake.push(frame);
        c.out.set(msg.id, { method });
        return;
      }
      const c = this.current();
      if (method !== undefined) {
        const sid = sidOf(msg);
        if (method === 'session/new' || method === 'session/fork') {
          if (hasId) c.out.set(msg.id, { method, held: frame });
          return;
        }
        if (method === 'authenticate') {
          c.handshake.push(frame);
          if (hasId) c.out.set(msg.id, { method });
          return;
        }
        if (hasId) c.out.set(msg.id, sid ? { method, sid } : { method });
        return this.deliver(c, sid, frame);
      }
      // Our answer to an agent request.
      const sid = c.inbound.get(msg.id);
      c.inbound.delete(msg.id);
      return this.deliver(c, sid, frame);
    }
    // agent -> client
    if (method !== undefined) {
      const c = this.current();
      const sid = sidOf(msg);
      if (hasId) c.inbound.set(msg.id, sid);
      return this.deliver(c, sid, frame);
    }
    const [c, p] = this.answered(msg.id);
    if (!p) return this.deliver(c, undefined, frame);
    if (p.method === 'initialize' || p.method === 'authenticate') {
      c.handshake.push(frame);
      if (p.method === 'initialize') c.info = connectionInfo(msg.result);
      return;
    }
    if (p.held) {
      const sid = obj(msg.result)?.sessionId;
      if (typeof sid !== 'string' || sid === '') {
        this.logger?.debug('harness: a session setup failed; its frames belong to no session', { method: p.method });
        return;
      }
      // Early updates for the new session (sent before this answer) wait already: the request goes first.
      if (!this.claims.has(sid)) this.waiting.set(sid, [p.held, ...(this.waiting.get(sid) ?? [])]);
      else this.deliver(c, sid, p.held);
      return this.deliver(c, sid, frame);
    }
    return this.deliver(c, p.sid, frame);
  }

  /** The request a response answers (newest connection first). */
  private answered(id: JsonRpcId | undefined): [Conn, Pending | undefined] {
    for (let i = this.conns.length - 1; i >= 0; i--) {
      const c = this.conns[i]!;
      const p = c.out.get(id);
      if (p) {
        c.out.delete(id);
        return [c, p];
      }
    }
    return [this.current(), undefined];
  }

  private deliver(c: Conn, sid: string | undefined, frame: Frame): void {
    if (sid === undefined) {
      for (const claim of this.claims.values()) if (claim.conn === c.n) this.send(claim, c, frame);
      return;
    }
    const claim = this.claims.get(sid);
    if (claim) return this.send(claim, c, frame);
    let list = this.waiting.get(sid);
    if (!list) {
      if (this.waiting.size >= MAX_WAITING_SESSIONS) this.waiting.delete(this.waiting.keys().next().value!);
      this.waiting.set(sid, (list = []));
    }
    if (list.length < MAX_WAITING_FRAMES) list.push(frame);
  }

  private send(claim: Claim, c: Conn, frame: Frame): void {
    if (claim.conn !== c.n) {
      claim.conn = c.n;
      claim.sent = 0;
    }
    // The connection's handshake first (a new connection, or an authenticate since the last frame).
    while (claim.sent < c.handshake.length) claim.sink(c.handshake[claim.sent++]!);
    claim.sink(frame);
  }

  /** From now on `sid`'s frames go to `sink`; what arrived for it meanwhile is delivered first. */
  claim(sid: string, sink: FrameSink): void {
    const claim: Claim = { sink, conn: -1, sent: 0 };
    this.claims.set(sid, claim);
    const c = this.current();
    const held = this.waiting.get(sid) ?? [];
    this.waiting.delete(sid);
    if (held.length === 0) {
      // Nothing yet: the handshake still opens the log.
      claim.conn = c.n;
      while (claim.sent < c.handshake.length) claim.sink(c.handshake[claim.sent++]!);
      return;
    }
    for (const f of held) this.send(claim, c, f);
  }

  release(sid: string, sink?: FrameSink): void {
    const claim = this.claims.get(sid);
    if (claim && (sink === undefined || claim.sink === sink)) this.claims.delete(sid);
    this.waiting.delete(sid);
  }

  /** Frames waiting for a session nobody claimed (tests, diagnostics). */
  waitingFor(sid: string): number {
    return this.waiting.get(sid)?.length ?? 0;
  }
}

function connectionInfo(result: unknown): ConnectionInfo {
  const r = obj(result) ?? {};
  const info: ConnectionInfo = {};
  const agentInfo = obj(r.agentInfo);
  if (agentInfo) info.agentInfo = agentInfo as ConnectionInfo['agentInfo'];
  if (r.protocolVersion !== undefined) info.protocolVersion = r.protocolVersion;
  const caps = obj(r.agentCapabilities);
  if (caps) info.agentCapabilities = caps;
  return info;
}

/** Routers for every agent key, by the key's id. */
export class FrameRouter {
  private readonly routers = new Map<string, ConnectionRouter>();

  constructor(private readonly logger?: Logger) {}

  for(keyId: string): ConnectionRouter {
    let r = this.routers.get(keyId);
    if (!r) this.routers.set(keyId, (r = new ConnectionRouter(this.logger)));
    return r;
  }
}

/** One id per agent process key (provider, profile, workspace). */
export function keyId(key: { provider: string; profile?: string; workspace: string }): string {
  return `${key.provider}\u0000${key.profile ?? ''}\u0000${key.workspace}`;
}
