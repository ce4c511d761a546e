/**
 * `/acp` on `talaria serve`: ACP over WebSocket (the SDK's experimental `AcpServer`, which owns the
 * framing, the `Acp-Connection-Id` header and the connection limits) in front of the same proxy as
 * `talaria acp`, over the server's harness. Sessions an ACP client opens here are live server
 * sessions: the web UI and `/ws` see them, and a session already live is joined, not reopened.
 *
 * The server's upgrade handler has checked Host, Origin and the token before this runs; `/acp`
 * drives sessions, so it also needs a controller token. `?agent=ID` (and `?profile=`, `?cwd=`)
 * choose the agent; without one, Talaria picks as `talaria run` does.
 */
import type { IncomingMessage } from 'node:http';
import { isAbsolute } from 'node:path';
import type { Duplex } from 'node:stream';
import { AcpServer, type AgentFactory } from '../protocol/connection.js';
import { WebSocket, WebSocketServer } from 'ws';
import { AcpProxy, type RpcMessage } from '../harness/acp/index.js';
import type { Harness } from '../harness/index.js';
import type { Logger } from '../protocol/types.js';
import type { SessionOps } from './session-ops.js';
import type { Hub } from './hub.js';
import type { UpgradeHandler } from './upgrade-handler.js';
import type { TokenIdentity } from './tokens.js';

export interface AcpMountOptions {
  harness: Harness;
  hub: Hub;
  ops: SessionOps;
  logger: Logger;
  version: string;
  /** Largest ACP message a client may send (default 16 MiB). */
  maxFrameBytes?: number;
  /** Where a client's agent is warmed up when it names no `?cwd=` (default: the server's cwd). */
  cwd?: string;
  /**
   * Bytes a client may leave unread before it is disconnected (default 64 MiB). ACP has no replay,
   * so a client that stops reading cannot be caught up later as a `/ws` one is; holding its backlog
   * without end would grow the server instead. Its sessions go on; it can reconnect and load them.
   */
  maxUnreadBytes?: number;
}

export const DEFAULT_ACP_UNREAD_BYTES = 64 * 1024 * 1024;

export interface AcpMount {
  handler: UpgradeHandler;
  close(): Promise<void>;
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${text.split('\n')[0]}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}

/** One ACP connection's agent: every message from the client goes to a fresh proxy, every message it writes goes back. */
type AgentConnector = ReturnType<AgentFactory>;

function proxyConnector(
  make: (write: (msg: RpcMessage) => void) => AcpProxy,
  logger: Logger,
  afterWrite: () => void,
): AgentConnector {
  return {
    connect(stream) {
      const writer = stream.writable.getWriter();
      const proxy = make((msg) => {
        writer.write(msg as never).catch(() => undefined);
        afterWrite();
      });
      const reader = stream.readable.getReader();
      const closed = (async () => {
        try {
          for (;;) {
            const r = await reader.read();
            if (r.done) break;
            proxy.receive(r.value as RpcMessage);
          }
        } catch (err) {
          logger.debug('acp: the client stream ended with an error', { error: String(err) });
        } finally {
          await proxy.close();
          await writer.close().catch(() => undefined);
        }
      })();
      return { closed };
    },
  };
}

export function acpMount(o: AcpMountOptions): AcpMount {
  // The agent is given per upgrade (its query chooses it); this default is never used.
  const server = new AcpServer({
    createAgent: () => {
      throw new Error('no agent for this connection');
    },
  });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: o.maxFrameBytes ?? 16 * 1024 * 1024,
    perMessageDeflate: false,
  });

  async function provider(q: URLSearchParams, cwd: string): Promise<string> {
    const agent = q.get('agent');
    if (agent !== null) {
      if (!o.harness.registry.has(agent))
        throw new Error(
          `unknown agent '${agent}' (known: ${o.harness.registry
            .list()
            .map((x) => x.id)
            .join(', ')})`,
        );
      return agent;
    }
    const profile = q.get('profile');
    return (await o.harness.pickAgent({ workspace: cwd, ...(profile ? { profile } : {}) })).provider;
  }

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, identity: TokenIdentity): Promise<void> {
    if (identity.role !== 'controller')
      return refuse(socket, 403, 'Forbidden\n/acp drives sessions: it needs a controller token');
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    const cwd = q.get('cwd') ?? o.cwd ?? process.cwd();
    if (!isAbsolute(cwd)) return refuse(socket, 400, `Bad Request\ncwd must be an absolute path: ${cwd}`);
    let id: string;
    try {
      id = await provider(q, cwd);
    } catch (err) {
      return refuse(socket, 400, `Bad Request\n${(err as Error).message}`);
    }
    const profile = q.get('profile') ?? undefined;
    const shared = {
      opened: (hs: Parameters<Hub['attach']>[0]) => {
        o.ops.attach(hs);
      },
      live: (sid: string) => o.hub.get(sid)?.hs,
    };
    let client: WebSocket | undefined;
    const maxUnread = o.maxUnreadBytes ?? DEFAULT_ACP_UNREAD_BYTES;
    // What the client left unread is what the socket still holds (the kernel's buffers full first).
    const checkUnread = () => {
      if (client === undefined || client.readyState !== WebSocket.OPEN || client.bufferedAmount <= maxUnread) return;
      o.logger.warn('acp: a client that stopped reading was disconnected', {
        unreadBytes: client.bufferedAmount,
        limit: maxUnread,
        provider: id,
      });
      client.terminate();
    };
    const agent = proxyConnector(
      (write) =>
        new AcpProxy({
          harness: o.harness,
          provider: id,
          ...(profile ? { profile } : {}),
          cwd,
          version: o.version,
          logger: o.logger,
          write,
          shared,
        }),
      o.logger,
      checkUnread,
    );
    const prepared = server.prepareWebSocketUpgrade({ agent });
    // As the SDK's Node upgrade helper does: the 101 carries Acp-Connection-Id.
    const onHeaders = (headers: string[], r: IncomingMessage) => {
      if (r === req) headers.push(`Acp-Connection-Id: ${prepared.connectionId}`);
    };
    wss.on('headers', onHeaders);
    let accepted = false;
    socket.once('close', () => {
      wss.off('headers', onHeaders);
      if (!accepted) prepared.reject();
    });
    wss.handleUpgrade(req, socket, head, (ws) => {
      accepted = true;
      client = ws;
      wss.off('headers', onHeaders);
      o.logger.info('acp: a client connected', { provider: id, token: identity.id });
      ws.on('close', (code, why) => o.logger.debug('acp: a client left', { code, why: String(why) }));
      prepared.accept(ws as never);
    });
  }

  return {
    handler: (req, socket, head, identity) => {
      upgrade(req, socket, head, identity).catch((err: unknown) => {
        o.logger.error('acp: the upgrade failed', { error: String(err) });
        refuse(socket, 500, 'Internal Server Error');
      });
    },
    async close() {
      await server.close();
      wss.close();
    },
  };
}
