/**
 * `talaria acp --attach URL`: the editor's stdio goes through to a running `talaria serve`'s
 * `/acp` (the SDK's WebSocket transport), so the editor and the browser drive one live session.
 * Everything Talaria does for the editor happens in the server; this is a pipe that checks its
 * input (a line that is not JSON gets a parse error here, never a dropped frame in silence).
 */
import type { AnyMessage } from '@agentclientprotocol/sdk';
import { createWebSocketStream } from '../../protocol/connection.js';
import WebSocket from 'ws';
import { LineDecoder } from '../../protocol/ndjson.js';
import type { Logger } from '../../protocol/types.js';
import { acpUrl } from '../../providers/acp-url.js';
import { UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import type { CliContext } from './common.js';

/** Resolves when the socket is open (undefined) or failed (why: the server's status and text, or the network error). */
function connected(ws: WebSocket): Promise<string | undefined> {
  return new Promise((resolve) => {
    ws.once('open', () => resolve(undefined));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(`HTTP ${res.statusCode ?? '?'} ${body.trim().replace(/\s+/g, ' ')}`.trim()));
      res.on('error', () => resolve(`HTTP ${res.statusCode ?? '?'}`));
    });
    ws.once('error', (err) => resolve(err.message));
  });
}

/** `agent`/`profile`: which of the server's agents (its `?agent=` and `?profile=`), unless the URL says. */
export async function acpAttach(
  target: string,
  o: { token?: string | undefined; agent?: string | undefined; profile?: string | undefined; cwd?: string | undefined },
  ctx: CliContext,
  logger: Logger,
): Promise<number> {
  const { io } = ctx;
  let where;
  try {
    where = acpUrl(target, { what: 'acp --attach', token: o.token, envToken: io.env.TALARIA_TOKEN });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const url = new URL(where.url);
  if (o.agent && !url.searchParams.has('agent')) url.searchParams.set('agent', o.agent);
  if (o.profile && !url.searchParams.has('profile')) url.searchParams.set('profile', o.profile);
  // On this machine the editor's folder is the server's too: its agent warms up there.
  if (o.cwd && where.loopback && !url.searchParams.has('cwd')) url.searchParams.set('cwd', o.cwd);
  if (!where.token)
    throw new UsageError('acp --attach: the server needs a token (#token=… in the URL, --token or TALARIA_TOKEN)');
  // The socket the SDK's stream opens, kept to learn whether (and why not) it connected.
  let socket: WebSocket | undefined;
  const tap = (s: WebSocket) => (socket = s);
  class Tapped extends WebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      tap(this);
    }
  }
  const stream = createWebSocketStream(url.toString(), {
    WebSocket: Tapped as never,
    headers: { authorization: `Bearer ${where.token}` },
  });
  const refused = await connected(socket!);
  if (refused !== undefined) {
    io.stderr.write(`talaria acp: the connection to ${where.url} failed: ${refused}\n`);
    await stream.writable.abort().catch(() => undefined);
    return EXIT.NOT_READY;
  }
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const out = (msg: unknown): boolean => io.stdout.write(`${JSON.stringify(msg)}\n`);
  // The next message is read once the editor took the last one (an editor that stalls costs no
  // memory here: the socket is paused meanwhile).
  const drained = (): Promise<void> => new Promise<void>((r) => (io.stdout.once ? io.stdout.once('drain', r) : r()));
  const decoder = new LineDecoder({
    onLine: (line) => {
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        out({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not JSON' } });
        return;
      }
      writer
        .write(msg as AnyMessage)
        .catch((err: unknown) => logger.warn('a message to the server was not sent', { error: String(err) }));
    },
    onOversize: (o) => logger.error('a line from the editor was too long and was dropped', { bytes: o.bytes }),
  });
  let failed: string | undefined;
  let leaving = false;
  const fromServer = (async () => {
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) {
          // Not the editor leaving: the link dropped or the server closed it (the host respawns and reloads).
          if (!leaving) failed = 'the server closed the connection';
          return;
        }
        if (!out(r.value)) {
          // The editor is behind: stop reading the socket too, or the messages would pile up here
          // (the SDK's stream queues all it is given). The server holds the backlog, up to its bound.
          socket?.pause();
          await drained();
          socket?.resume();
        }
      }
    } catch (err) {
      if (!leaving) failed = (err as Error).message || String(err);
    }
  })();
  const offs: (() => void)[] = [];
  await Promise.race([
    fromServer,
    new Promise<void>((resolve) => {
      offs.push(
        ctx.onTerminate(() => resolve()),
        ctx.onInterrupt(() => resolve()),
      );
      io.stdin.on('data', (c: Buffer | string) => decoder.push(typeof c === 'string' ? Buffer.from(c) : c));
      for (const ev of ['end', 'close', 'error']) io.stdin.on(ev, () => resolve());
    }),
  ]);
  for (const off of offs) off();
  leaving = failed === undefined;
  await writer.close().catch(() => undefined);
  await reader.cancel().catch(() => undefined);
  if (failed !== undefined) {
    io.stderr.write(`talaria acp: the connection to ${where.url} failed: ${failed}\n`);
    return EXIT.NOT_READY;
  }
  return EXIT.OK;
}
