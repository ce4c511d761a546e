/**
 * `talaria serve`'s server: one port (loopback by default) with `/` the web UI, `/api` the HTTP
 * API, `/ws` the UI's WebSocket, and reserved upgrade mounts for `/acp` and `/captp`.
 *
 *   const s = await startServer({ harness, port: 0 });
 *   console.log(s.url);   // http://127.0.0.1:PORT/#token=…
 *   await s.close();      // graceful: turns finish or are cancelled, agents stop, the store closes
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttp, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createAdaptorServer } from '@hono/node-server';
import { WebSocketServer } from 'ws';
import type { Harness } from '../harness/index.js';
import { TalariaError } from '../protocol/errors.js';
import { silentLogger, type Logger } from '../protocol/types.js';
import { acpMount } from './acp-mount.js';
import { ptyChannel } from './pty-channel.js';
import { buildApp, type Handlers } from './app.js';
import {
  PATHS,
  PEER_REF_HEADER,
  WS_CLOSE,
  type Role,
  type SessionSnapshot,
  type StreamEvent,
} from './contract/index.js';
import { EventLog } from './event-log.js';
import { guardConfig, hostAllowed, identify, isLoopback, originAllowed, type GuardConfig } from './guard.js';
import { cookieHandlers } from './handlers-cookie.js';
import { authHandlers } from './handlers-auth.js';
import { registryHandlers } from './handlers-registry.js';
import { miscHandlers } from './handlers-misc.js';
import { sessionHandlers } from './handlers-sessions.js';
import { hermesHandlers } from './handlers-hermes.js';
import { hermesSessionHandlers } from './handlers-hermes-sessions.js';
import { SessionOps } from './session-ops.js';
import { runHandlers } from './handlers-run.js';
import { Hub } from './hub.js';
import { pairAnswer, PeerSockets, remoteOf, reportLiveSessions, type ServerFleet } from './fleet.js';
import type { RecordingRelay } from './recording.js';
import { TokenBound } from './token-bound.js';
import type { UpgradeHandler } from './upgrade-handler.js';
import { TokenRegistry, tokensFile } from './tokens.js';
import { WsConn } from './ws-conn.js';

const DEFAULT_MAX_BUFFERED = 4 * 1024 * 1024;
export interface ServerOptions {
  harness: Harness;
  /** 0 (default): a free port. */
  port?: number;
  /**
   * When `port` is taken, try the next ones (up to 20), then any free port — for a port the caller
   * chose itself (serve's stable port), which another process can take between a probe and the listen.
   */
  nextFreePort?: boolean;
  /** Default 127.0.0.1. Anything else needs `tls` or `insecure`. */
  host?: string;
  tls?: { cert: string; key: string };
  /** Serve plain HTTP on a non-loopback address anyway (a warning is logged on every start). */
  insecure?: boolean;
  logger?: Logger;
  version?: string;
  /** Where the built web UI is (default: dist/web of the package). */
  webRoot?: string;
  /** Tokens file (default <home>/server-tokens.json; null: the start token only). */
  tokensFile?: string | null;
  /** The role of the token printed at start (default controller). */
  startRole?: Role;
  maxBodyBytes?: number;
  maxFrameBytes?: number;
  /** Bytes a client may leave unread before its events stop until it catches up (a `/ws` socket, a run stream; default 4 MB). */
  maxBufferedBytes?: number;
  heartbeatMs?: number;
  /** How long a graceful stop lets running turns finish before cancelling them (default 5 s). */
  graceMs?: number;
  /** Bytes an `/acp` client may leave unread before it is disconnected (default 64 MiB; acp-mount.ts). */
  maxAcpUnreadBytes?: number;
  /** Event log retention per session. */
  retainEvents?: number;
  /** Extra Host names accepted (e.g. a LAN name with TLS). */
  allowHosts?: string[];
  /**
   * The relay whose harnessOptions the harness was created with: its recording delays and
   * failures become session events (recording.ts). Without it a browser cannot tell.
   */
  recording?: RecordingRelay;
  /** This server is a host of a fleet (`talaria serve` on a PostgreSQL store): fleet.ts. */
  fleet?: ServerFleet;
}

export type { UpgradeHandler } from './upgrade-handler.js';

export interface RunningServer {
  readonly port: number;
  readonly host: string;
  /** The origin, e.g. http://127.0.0.1:4000. */
  readonly origin: string;
  /** The link a person clicks: origin + `/#token=…`. */
  readonly url: string;
  /** The start token (controller unless startRole says otherwise). */
  readonly token: string;
  readonly tokens: TokenRegistry;
  readonly hub: Hub;
  /**
   * The store's event stream per session (seq = `session_events.seq`, the one `/ws` clients see), for
   * another face's resume cursor (caps): each event as appended, what came after a seq (undefined:
   * take a snapshot), the last seq.
   */
  readonly events: {
    subscribe(sessionId: string, fn: (ev: StreamEvent) => void): () => void;
    after(sessionId: string, since: number): StreamEvent[] | undefined;
    head(sessionId: string): number;
  };
  /**
   * Attaches a WebSocket face at a reserved path (`/acp`, `/captp`); the token is checked first.
   * `tokens: false`: only a fleet's peer hosts reach it (their pair reference, never a token).
   */
  mount(path: string, handler: UpgradeHandler, o?: { tokens?: boolean }): void;
  /** A session as the clients see it (a fleet's peer hosts ask the owner for it). */
  snapshot(sessionId: string): SessionSnapshot;
  /** Live `/ws` connections (tests, stats). */
  connections(): number;
  close(): Promise<void>;
}

const DEFAULT_WEB = fileURLToPath(new URL('../../dist/web', import.meta.url));

function reject(socket: Duplex, status: number, text: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}

export async function startServer(o: ServerOptions): Promise<RunningServer> {
  const harness = o.harness;
  const logger = o.logger ?? silentLogger;
  const host = o.host ?? '127.0.0.1';
  if (!isLoopback(host) && !o.tls && !o.insecure) {
    throw new TalariaError(
      'invalid_argument',
      `--host ${host} is not loopback: serving it needs --tls-cert and --tls-key (or --insecure)`,
      { host },
    );
  }
  if (!isLoopback(host) && !o.tls)
    logger.warn(`serve: plain HTTP on ${host}: the token and every session cross the network unencrypted (--insecure)`);
  const version = o.version ?? '0.0.0';
  const startedAt = Date.now();
  const tokens = new TokenRegistry(o.tokensFile === null ? undefined : (o.tokensFile ?? tokensFile(harness.home)));
  const start = tokens.addEphemeral(o.startRole ?? 'controller', 'serve');
  const log = new EventLog(harness.store, {
    ...(o.retainEvents ? { retain: o.retainEvents } : {}),
    onError: (err) => logger.error('serve: event log write failed', { error: String(err) }),
  });
  const hub = new Hub(harness, log, o.recording);
  const ops = new SessionOps(harness, hub);
  // Every connection (upgrades, streamed answers) is tied to the token that opened it.
  const bound = new TokenBound();
  // The guard needs the port, known after listen: filled in below, read per request.
  const guard: GuardConfig = { hosts: new Set<string>(), origins: new Set<string>(), cookie: '' };
  // Bumped by every sign-in: the cached `/api/readiness` answer is stale after one.
  let signIns = 0;
  const onSignedIn = () => void signIns++;
  const handlers = {
    ...miscHandlers(harness, hub, { version, startedAt, signIns: () => signIns }),
    ...hermesHandlers(harness),
    ...sessionHandlers(harness, hub, ops, o.fleet),
    ...hermesSessionHandlers(harness, hub, ops),
    ...runHandlers(harness, hub, ops, { maxBufferedBytes: o.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED }),
    ...authHandlers(harness, { onSignedIn }),
    ...registryHandlers(harness, { onChanged: onSignedIn }),
  } as Handlers;
  Object.assign(handlers, cookieHandlers(guard, Boolean(o.tls)));
  const pty = ptyChannel({ harness, logger, onSignedIn });

  const mounts = new Map<string, UpgradeHandler>();
  /** Mounts a token does not open (`/captp` for a fleet's peers only, without --caps). */
  const peersOnly = new Set<string>();
  const peerSockets = new PeerSockets();
  const reserved = [PATHS.acp, PATHS.captp];
  const acp = acpMount({
    harness,
    hub,
    ops,
    logger,
    version,
    ...(o.maxAcpUnreadBytes ? { maxUnreadBytes: o.maxAcpUnreadBytes } : {}),
  });
  mounts.set(PATHS.acp, acp.handler);
  const app = buildApp({
    guard,
    tokens,
    bound,
    handlers,
    logger,
    maxBodyBytes: o.maxBodyBytes ?? 32 * 1024 * 1024,
    webRoot: o.webRoot ?? DEFAULT_WEB,
    reserved,
  });

  // A fleet's pair requests are signed by the asking host, not sent with a token: before the app's guard.
  const fleet = o.fleet;
  const fetch: typeof app.fetch = (req, ...rest) =>
    fleet && new URL(req.url).pathname === PATHS.fleetPair && hostAllowed(guard, req.headers.get('host') ?? undefined)
      ? pairAnswer(req, fleet, logger)
      : app.fetch(req, ...rest);
  const server = (
    o.tls
      ? createAdaptorServer({
          fetch,
          createServer: createHttps,
          serverOptions: { cert: readFileSync(o.tls.cert), key: readFileSync(o.tls.key) },
        })
      : createAdaptorServer({ fetch, createServer: createHttp })
  ) as Server;

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: o.maxFrameBytes ?? 1024 * 1024,
    perMessageDeflate: false,
    // The browser offers ['talaria', 'talaria.token.…']: answer the plain one, never echo the token.
    handleProtocols: (protocols) => (protocols.has('talaria') ? 'talaria' : false),
  });
  const conns = new Set<WsConn>();
  const connOpts = {
    maxBufferedBytes: o.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED,
    heartbeatMs: o.heartbeatMs ?? 15_000,
    version,
    logger,
  };
  let stopping = false;
  // A fleet: this host's live sessions go to it, its changes to every `/ws` client (lists ask again).
  const offFleet = o.fleet ? reportLiveSessions(hub, o.fleet) : () => undefined;
  // A session another live host owns is followed there (when this host forwards; else read here).
  hub.remoteOf = (id) => remoteOf(o.fleet, id);
  const offFleetView = o.fleet?.onChange(() => {
    for (const c of conns) c.send({ type: 'fleet.updated' });
  });

  function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void | Promise<void> {
    if (stopping) return reject(socket, 503, 'Service Unavailable');
    if (!hostAllowed(guard, req.headers.host)) return reject(socket, 403, 'Forbidden');
    if (!originAllowed(guard, req.headers.origin)) return reject(socket, 403, 'Forbidden');
    const path = (req.url ?? '/').split('?')[0]!;
    const peerRef = req.headers[PEER_REF_HEADER];
    if (path === PATHS.captp && typeof peerRef === 'string') {
      // A fleet host with the reference this host minted for it: that reference is its authority.
      const mounted = mounts.get(path);
      const peer = mounted && peerSockets.admit(o.fleet, peerRef, socket);
      return peer ? mounted!(req, socket, head, peer) : reject(socket, 401, 'Unauthorized');
    }
    const identity = identify(
      {
        authorization: req.headers.authorization,
        cookie: req.headers.cookie,
        protocol: req.headers['sec-websocket-protocol'] as string | undefined,
      },
      guard.cookie,
      (t) => tokens.verify(t),
    );
    if (!identity) return reject(socket, 401, 'Unauthorized');
    if (path === PATHS.ws) {
      let conn: WsConn | undefined;
      // `/ws` closes with its own code (the page says why); before the handshake ends, a cut.
      bound.bind(socket, identity, () => (conn ? conn.close(WS_CLOSE.revoked, 'token revoked') : socket.destroy()));
      wss.handleUpgrade(req, socket, head, (ws) => {
        conn = new WsConn(ws, identity, hub, connOpts);
        conns.add(conn);
        ws.on('close', () => conns.delete(conn!));
      });
      return;
    }
    bound.bind(socket, identity);
    if (pty.match(path) !== undefined) return pty.upgrade(req, socket, head, identity);
    const mounted = peersOnly.has(path) ? undefined : mounts.get(path);
    if (mounted) return mounted(req, socket, head, identity);
    reject(socket, 404, 'Not Found');
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    // A throw here would end the process (an upgrade listener runs outside any request handler).
    const failed = (err: unknown) => {
      logger.error('serve: an upgrade failed', {
        path: (req.url ?? '/').split('?')[0],
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
      if (socket.writable && !bound.has(socket)) reject(socket, 500, 'Internal Server Error');
      else socket.destroy();
    };
    try {
      onUpgrade(req, socket, head)?.catch(failed);
    } catch (err) {
      failed(err);
    }
  });

  // A revoked token's live connections close at once, on every face.
  tokens.onChange(() => bound.revoke((id) => tokens.valid(id)));

  const listen = (port: number) =>
    new Promise<void>((resolve, rejectListen) => {
      server.once('error', rejectListen);
      server.listen(port, host, () => {
        server.off('error', rejectListen);
        resolve();
      });
    });
  for (let want = o.port ?? 0, tries = 0; ; tries++) {
    try {
      await listen(want);
      break;
    } catch (err) {
      if (!o.nextFreePort || want === 0 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      want = tries < 20 && want < 65535 ? want + 1 : 0;
    }
  }
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : (o.port ?? 0);
  const g = guardConfig(host, port, Boolean(o.tls), o.allowHosts);
  for (const h of g.hosts) guard.hosts.add(h);
  for (const x of g.origins) guard.origins.add(x);
  guard.cookie = g.cookie;
  const shown = isLoopback(host) ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const origin = `${o.tls ? 'https' : 'http'}://${shown}:${port}`;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      stopping = true;
      offFleet();
      offFleetView?.();
      peerSockets.close();
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const c of conns) c.close(WS_CLOSE.shutdown, 'server stopping');
      // Let running turns finish within the grace period, then cancel what still runs.
      const running = [...hub.live.values()]
        .map((ls) => ls.hs.session.running?.result)
        .filter((p): p is NonNullable<typeof p> => p !== undefined);
      if (running.length > 0) {
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<void>((r) => (timer = setTimeout(r, o.graceMs ?? 5000)));
        await Promise.race([Promise.allSettled(running), grace]);
        clearTimeout(timer);
        await Promise.allSettled(
          [...hub.live.values()].filter((ls) => ls.hs.session.running).map((ls) => ls.hs.cancel()),
        );
      }
      await pty.close();
      await acp.close();
      await hub.closeAll();
      tokens.close();
      wss.close();
      await harness.close();
      server.closeAllConnections();
      await closed;
    })());

  return {
    port,
    host,
    origin,
    url: `${origin}/#token=${start.token}`,
    token: start.token,
    tokens,
    hub,
    events: {
      subscribe: (sessionId, fn) => hub.subscribe(sessionId, fn),
      after: (sessionId, since) => log.after(sessionId, since),
      head: (sessionId) => log.head(sessionId).last,
    },
    mount(path, handler, m = {}) {
      if (!reserved.includes(path as (typeof reserved)[number]))
        throw new TypeError(`not a reserved mount point: ${path}`);
      mounts.set(path, handler);
      if (m.tokens === false) peersOnly.add(path);
      else peersOnly.delete(path);
    },
    snapshot: (sessionId) => hub.snapshot(ops.row(sessionId)),
    connections: () => conns.size,
    close,
  };
}
