/**
 * One `/ws` connection: session subscriptions with exact catch-up (`since`), events in batches
 * (batch.ts), a bounded outbound buffer (over it, that session's events stop for this client and
 * it is told to resync; the agent, the store and other clients never wait), and heartbeats
 * (heartbeat.ts: a client still reading its backlog is slow, not dead).
 */
import type { WebSocket } from 'ws';
import { clientMessage, WS_CLOSE, type ServerMessage } from './contract/index.js';
import type { Hub } from './hub.js';
import type { TokenIdentity } from './tokens.js';
import { toHttpError } from './app.js';
import type { Logger } from '../protocol/types.js';
import { HttpError } from './http-error.js';
import { asciiJson, eventsFrame, type EventBatch } from './batch.js';
import { Heartbeat } from './heartbeat.js';
import { followRemote, type RemoteSink } from './hub-remote.js';

/** Catch-up events go in `events` messages of about this many bytes. */
const CATCH_UP_FRAME_BYTES = 1024 * 1024;

export interface ConnOptions {
  /** Bytes the socket may hold unsent before a subscription is cut and told to resync. */
  maxBufferedBytes: number;
  heartbeatMs: number;
  version: string;
  logger: Logger;
}

interface Sub {
  off: () => void;
  overflowed: boolean;
}

export class WsConn {
  private readonly subs = new Map<string, Sub>();
  private readonly heartbeat: Heartbeat;
  private drainTimer: NodeJS.Timeout | undefined;
  private readonly offList: () => void;

  constructor(
    readonly ws: WebSocket,
    readonly identity: TokenIdentity,
    private readonly hub: Hub,
    private readonly o: ConnOptions,
  ) {
    ws.on('message', (data, isBinary) => this.onMessage(isBinary ? '' : data.toString()));
    ws.on('close', () => this.dispose());
    ws.on('error', () => undefined);
    this.heartbeat = new Heartbeat(ws, o.heartbeatMs, () => {
      ws.close(WS_CLOSE.dead, 'missed heartbeats');
      ws.terminate();
    });
    this.offList = hub.onSessionUpdated((session) => this.send({ type: 'session.updated', session }));
    this.send({
      type: 'welcome',
      role: identity.role,
      tokenId: identity.id,
      version: o.version,
      heartbeatMs: o.heartbeatMs,
    });
  }

  send(m: ServerMessage): void {
    this.raw(JSON.stringify(m));
  }

  private raw(json: string): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(json);
    this.heartbeat.sent(json.length);
  }

  /** UTF-8 JSON text as a text frame (the same buffer may go to many clients; `ws` does not copy it). */
  private rawBytes(json: Buffer): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(json, { binary: false });
    this.heartbeat.sent(json.length);
  }

  private onMessage(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.send({ type: 'error', error: { code: 'invalid_body', message: 'a message must be JSON text' } });
      return;
    }
    const r = clientMessage.safeParse(parsed);
    if (!r.success) {
      this.send({
        type: 'error',
        error: { code: 'invalid_body', message: `invalid message: ${r.error.issues[0]?.message ?? 'bad shape'}` },
      });
      return;
    }
    const m = r.data;
    try {
      if (m.type === 'ping') this.send({ type: 'pong', ...(m.id !== undefined ? { id: m.id } : {}) });
      else if (m.type === 'unsubscribe') this.unsubscribe(m.sessionId);
      else this.subscribe(m.sessionId, m.since);
    } catch (err) {
      const e = toHttpError(err, this.o.logger);
      this.send({
        type: 'error',
        error: e.body(),
        sessionId: m.type === 'ping' ? undefined : m.sessionId,
      } as ServerMessage);
    }
  }

  private unsubscribe(sessionId: string): void {
    const row = this.hub.harness.sessions.find(sessionId);
    const id = row?.id ?? sessionId;
    this.subs.get(id)?.off();
    this.subs.delete(id);
  }

  /**
   * Catch-up and going live happen in one synchronous step: events are appended synchronously
   * on the event loop, and registering flushes the session's pending batch to the earlier
   * subscribers, so nothing falls between the log read and the live stream, and nothing is sent twice.
   */
  subscribe(sessionId: string, since: number | undefined): void {
    const row = this.hub.harness.sessions.find(sessionId);
    if (!row) throw new HttpError('not_found', `no session ${sessionId}`);
    const id = row.id;
    this.subs.get(id)?.off();
    const remote = this.hub.remoteOf?.(id);
    if (remote)
      return void this.subs.set(id, { overflowed: false, off: followRemote(remote, since, this.remoteSink(id)) });
    const sub: Sub = { overflowed: false, off: () => {} };
    sub.off = this.hub.subscribeBatches(id, (b) => this.deliver(id, sub, b));
    this.subs.set(id, sub);
    const events = since === undefined ? undefined : this.hub.log.after(id, since);
    let seq: number;
    if (events === undefined) {
      const snapshot = this.hub.snapshot(row);
      seq = snapshot.seq;
      this.send({ type: 'snapshot', sessionId: id, snapshot });
    } else {
      let jsons: string[] = [];
      let bytes = 0;
      for (const event of events) {
        const json = asciiJson(event);
        jsons.push(json);
        bytes += json.length;
        if (bytes >= CATCH_UP_FRAME_BYTES) {
          this.rawBytes(eventsFrame(id, jsons));
          jsons = [];
          bytes = 0;
        }
      }
      if (jsons.length > 0) this.rawBytes(eventsFrame(id, jsons));
      seq = events.at(-1)?.seq ?? since!;
    }
    this.send({ type: 'synced', sessionId: id, seq });
  }

  /** Where a session followed on its owner host goes (hub-remote.ts). */
  private remoteSink(id: string): RemoteSink {
    return {
      send: (m) => this.send(m),
      frame: (bytes) => this.rawBytes(bytes),
      failed: (err) => {
        this.subs.delete(id);
        this.send({ type: 'error', error: toHttpError(err, this.o.logger).body(), sessionId: id } as ServerMessage);
      },
    };
  }

  /**
   * One batch to this client, bounded in bytes as if its events were sent one by one: an event
   * goes while what the socket holds plus the batch's events before it fit the bound; past it,
   * the rest is dropped and the client is told to resync once the socket drained. The whole
   * batch fits in the usual case, and then the shared bytes go as they are.
   */
  private deliver(id: string, sub: Sub, b: EventBatch): void {
    if (sub.overflowed) return;
    const room = this.o.maxBufferedBytes - this.ws.bufferedAmount;
    if (b.bytes <= room) this.rawBytes(b.frame());
    else {
      let n = 0;
      for (let used = 0; n < b.jsons.length && used <= room; n++) used += b.sizes[n]!;
      if (n > 0) this.rawBytes(eventsFrame(id, b.jsons.slice(0, n)));
      if (n < b.jsons.length) {
        sub.overflowed = true;
        this.watchDrain();
        return;
      }
    }
    // A `session.live` reset rebuilt the history outside the stream: a fresh snapshot follows it.
    if (b.live) {
      const row = this.hub.harness.sessions.find(id);
      if (row) this.send({ type: 'snapshot', sessionId: id, snapshot: this.hub.snapshot(row) });
    }
  }

  /** Once the socket drained, tells each cut subscription to resync (it resumes with `since`). */
  private watchDrain(): void {
    if (this.drainTimer) return;
    this.drainTimer = setInterval(() => {
      if (this.ws.readyState !== this.ws.OPEN) return this.stopDrain();
      if (this.ws.bufferedAmount > this.o.maxBufferedBytes / 2) return;
      for (const [id, sub] of this.subs) {
        if (!sub.overflowed) continue;
        sub.off();
        this.subs.delete(id);
        this.send({ type: 'resync', sessionId: id, reason: 'overflow' });
      }
      this.stopDrain();
    }, 20);
    this.drainTimer.unref();
  }

  private stopDrain(): void {
    if (this.drainTimer) clearInterval(this.drainTimer);
    this.drainTimer = undefined;
  }

  close(code: number, reason: string): void {
    this.ws.close(code, reason);
  }

  dispose(): void {
    this.heartbeat.stop();
    this.stopDrain();
    this.offList();
    for (const s of this.subs.values()) s.off();
    this.subs.clear();
  }
}
