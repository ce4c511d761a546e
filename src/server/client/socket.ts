import type { ClientMessage, ServerMessage, SessionSnapshot, StreamEvent } from '../contract/index.js';
import { TOKEN_PROTOCOL_PREFIX } from '../contract/wire.js';

/** The part of the WHATWG WebSocket the client uses (the browser's, or `ws` in Node). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(
    type: 'open' | 'close' | 'error' | 'message',
    fn: (ev: { data?: unknown; code?: number }) => void,
  ): void;
}
export type WebSocketCtor = new (url: string, protocols?: string | string[]) => WebSocketLike;

export interface SubscribeHandlers {
  /** A snapshot replaced the session's state (first subscribe, `since` too old, resync). */
  onSnapshot?(snapshot: SessionSnapshot): void;
  /** Each event exactly once, in seq order. */
  onEvent?(event: StreamEvent): void;
  /** Caught up to `seq`; live from here. */
  onSynced?(seq: number): void;
}

export interface Subscription {
  readonly sessionId: string;
  /** The last seq delivered. */
  readonly seq: number;
  close(): void;
}

export interface LiveSocketOptions {
  /** Reconnect after a drop, resuming every subscription with `since` (default true). */
  reconnect?: boolean;
  /** First reconnect delay in ms (doubles up to 10 s). */
  reconnectMs?: number;
  onMessage?(m: ServerMessage): void;
  onOpen?(): void;
  onClose?(code: number | undefined): void;
}

interface Sub {
  sessionId: string;
  seq: number | undefined;
  h: SubscribeHandlers;
}

/**
 * One WebSocket to `/ws` carrying many session subscriptions. It keeps each session's last seq
 * and resumes with `since` after a drop or a `resync`, so a handler sees every event once.
 */
export class LiveSocket {
  private ws: WebSocketLike | undefined;
  private readonly subs = new Map<string, Sub>();
  private closed = false;
  private delay: number;
  private opened: Promise<void>;
  private resolveOpen!: () => void;
  welcome: Extract<ServerMessage, { type: 'welcome' }> | undefined;

  constructor(
    private readonly url: string,
    private readonly token: string | undefined,
    private readonly Ctor: WebSocketCtor,
    private readonly o: LiveSocketOptions = {},
  ) {
    this.delay = o.reconnectMs ?? 250;
    this.opened = new Promise((r) => (this.resolveOpen = r));
    this.connect();
  }

  /** Resolves once the server said `welcome`. */
  ready(): Promise<void> {
    return this.opened;
  }

  subscribe(sessionId: string, h: SubscribeHandlers, since?: number): Subscription {
    const sub: Sub = { sessionId, seq: since, h };
    this.subs.set(sessionId, sub);
    this.sendSubscribe(sub);
    return {
      sessionId,
      get seq() {
        return sub.seq ?? 0;
      },
      close: () => {
        if (this.subs.get(sessionId) !== sub) return;
        this.subs.delete(sessionId);
        this.send({ type: 'unsubscribe', sessionId });
      },
    };
  }

  send(m: ClientMessage): void {
    if (this.ws && this.ws.readyState === 1) this.ws.send(JSON.stringify(m));
  }

  close(): void {
    this.closed = true;
    this.ws?.close(1000, 'bye');
  }

  private sendSubscribe(sub: Sub): void {
    this.send({ type: 'subscribe', sessionId: sub.sessionId, ...(sub.seq !== undefined ? { since: sub.seq } : {}) });
  }

  private connect(): void {
    // 'talaria' is the protocol the server answers; the token rides along and is never echoed.
    const protocols = this.token ? ['talaria', TOKEN_PROTOCOL_PREFIX + this.token] : ['talaria'];
    const ws = new this.Ctor(this.url, protocols);
    this.ws = ws;
    ws.addEventListener('message', (ev) => this.onData(ev.data));
    ws.addEventListener('close', (ev) => {
      this.o.onClose?.(ev.code);
      if (this.closed || this.o.reconnect === false || ev.code === 4001) return;
      setTimeout(() => {
        if (!this.closed) this.connect();
      }, this.delay);
      this.delay = Math.min(this.delay * 2, 10_000);
    });
    ws.addEventListener('error', () => undefined);
  }

  private onData(data: unknown): void {
    const text = typeof data === 'string' ? data : String(data);
    const m = JSON.parse(text) as ServerMessage;
    this.o.onMessage?.(m);
    switch (m.type) {
      case 'welcome':
        this.welcome = m;
        this.delay = this.o.reconnectMs ?? 250;
        for (const s of this.subs.values()) this.sendSubscribe(s);
        this.o.onOpen?.();
        this.resolveOpen();
        return;
      case 'snapshot': {
        const s = this.subs.get(m.sessionId);
        if (!s) return;
        s.seq = m.snapshot.seq;
        s.h.onSnapshot?.(m.snapshot);
        return;
      }
      case 'events': {
        const s = this.subs.get(m.sessionId);
        if (!s) return;
        for (const e of m.events) {
          if (s.seq !== undefined && e.seq <= s.seq) continue; // already delivered
          if (s.seq !== undefined && e.seq !== s.seq + 1) {
            // A hole: ask again from what we have rather than show a gap.
            this.sendSubscribe(s);
            return;
          }
          s.seq = e.seq;
          s.h.onEvent?.(e);
          // A handler may have closed or replaced this subscription.
          if (this.subs.get(m.sessionId) !== s) return;
        }
        return;
      }
      case 'synced': {
        const s = this.subs.get(m.sessionId);
        s?.h.onSynced?.(m.seq);
        return;
      }
      case 'resync': {
        const s = this.subs.get(m.sessionId);
        if (s) this.sendSubscribe(s);
        return;
      }
      default:
        return;
    }
  }
}
