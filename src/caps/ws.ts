/**
 * The caps face over WebSocket: one CapTP message per text frame (JSON). `ws` enforces the frame
 * limit (`maxPayload`: an oversized frame closes the socket with 1009); a connection over its
 * message rate is closed with 1008; heartbeats (ping/pong) catch a silent partition, and closing
 * a socket closes its connection (its facts retracted, its gates shut).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { CapsHost } from './host.js';

export interface CapsWsOptions {
  /** Largest frame accepted (bytes); default 1 MiB. */
  maxPayload?: number;
  /** Messages per second one connection may send (a token bucket that size); default 20,000. */
  messagesPerSecond?: number;
  /** Ping interval; a peer that misses one pong is cut. Default 15 s; 0: off. */
  heartbeatMs?: number;
}

/** Attaches one socket to the host. */
export function serveSocket(host: CapsHost, ws: WebSocket, o: CapsWsOptions = {}): void {
  const rate = o.messagesPerSecond ?? 20_000;
  let tokens = rate;
  let refilled = Date.now();
  const conn = host.connect(
    (m) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
    },
    { onClosed: () => ws.close(1000, 'closed') },
  );
  let alive = true;
  const hb =
    (o.heartbeatMs ?? 15_000) > 0
      ? setInterval(() => {
          if (!alive) return ws.terminate();
          alive = false;
          ws.ping();
        }, o.heartbeatMs ?? 15_000)
      : undefined;
  hb?.unref();
  ws.on('pong', () => (alive = true));
  ws.on('message', (data, isBinary) => {
    alive = true;
    const now = Date.now();
    tokens = Math.min(rate, tokens + ((now - refilled) / 1000) * rate);
    refilled = now;
    if (tokens < 1) return ws.close(1008, 'message rate exceeded');
    tokens -= 1;
    if (isBinary) return conn.dispatch(undefined);
    let msg: unknown;
    try {
      msg = JSON.parse(String(data));
    } catch {
      return conn.dispatch(undefined);
    }
    conn.dispatch(msg);
  });
  ws.on('error', () => ws.terminate());
  ws.on('close', () => {
    if (hb) clearInterval(hb);
    conn.close('the socket closed');
  });
}

export interface CapsServer {
  readonly url: string;
  readonly wss: WebSocketServer;
  close(): Promise<void>;
}

/** Handles HTTP upgrades for a path of an existing server (`talaria serve` mounts it at /captp). */
export function capsUpgradeHandler(
  host: CapsHost,
  o: CapsWsOptions = {},
): { wss: WebSocketServer; handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxPayload ?? 1024 * 1024 });
  wss.on('connection', (ws) => serveSocket(host, ws, o));
  return {
    wss,
    handleUpgrade: (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req)),
  };
}

/** A standalone caps server on 127.0.0.1 (tests, benches, and until a server mounts it). */
export async function startCapsServer(
  host: CapsHost,
  o: CapsWsOptions & { port?: number; server?: Server } = {},
): Promise<CapsServer> {
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: o.port ?? 0,
    path: '/captp',
    maxPayload: o.maxPayload ?? 1024 * 1024,
  });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', reject);
  });
  wss.on('connection', (ws) => serveSocket(host, ws, o));
  const addr = wss.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `ws://127.0.0.1:${port}/captp`,
    wss,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  };
}
