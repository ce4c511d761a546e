/**
 * How `talaria run` on a warm server sets up its session and gets its events (run-server.ts does
 * the rest). A new session: one `POST /api/run/stream` (its answer is the turn, line by line) after
 * a health check — no WebSocket client loaded. `--session`: the `/ws` socket (its welcome is the
 * liveness check), the session opened, and its stream subscribed; the prompt is sent once synced.
 * Anything that fails before a prompt was sent answers 'fallback' (the run goes local); a failure
 * once the server may have taken the prompt is not retried (it would run twice).
 */
import { createRequire } from 'node:module';
import { connectServer, ServerError, type WebSocketCtor } from '../../server/client/index.js';
import type { SessionSnapshot, StreamEvent } from '../../server/contract/index.js';
import { nodeFetch } from '../node-fetch.js';
import { checkAlive, postRunStream } from '../run-stream-client.js';
import { LIVENESS_TIMEOUT_MS, type ServerDiscovery } from '../server-discovery.js';

export interface FeedHandlers {
  onEvent(e: StreamEvent): void;
  onSnapshot(s: SessionSnapshot): void;
  /** The stream is live (--session: the prompt may go now). */
  onSynced(): void;
}

export interface Feed {
  snap: SessionSnapshot;
  /** Set when the server already took the prompt. */
  sent: { id: string; queued: boolean } | undefined;
  start(h: FeedHandlers): void;
  /** The server or the connection ended the stream. */
  closed: Promise<'closed'>;
  close(): void;
}

export type SetupResult = Feed | { fallback: string } | { failed: string };

/** Whether an error before any answer proves that nothing was sent (so the run may go local). */
function nothingSent(err: unknown): boolean {
  return err instanceof ServerError || (err as { code?: string }).code === 'ECONNREFUSED';
}

/** A new session and its prompt in one streamed request. */
export async function streamFeed(found: ServerDiscovery, body: Record<string, unknown>): Promise<SetupResult> {
  try {
    await checkAlive(found.url, LIVENESS_TIMEOUT_MS);
  } catch (err) {
    return { fallback: `the server at ${found.url} does not answer (${(err as Error).message})` };
  }
  let stream: Awaited<ReturnType<typeof postRunStream>>;
  try {
    stream = await postRunStream(found.url, found.token, body);
  } catch (err) {
    if (nothingSent(err)) return { fallback: `the server at ${found.url} could not open the session (${(err as Error).message})` };
    return { failed: (err as Error).message };
  }
  return {
    snap: stream.answer.snapshot as SessionSnapshot,
    sent: stream.answer.turn,
    start(h) {
      stream.listen((m) => (m.type === 'snapshot' ? h.onSnapshot((m as unknown as { snapshot: SessionSnapshot }).snapshot) : h.onEvent(m as StreamEvent)));
      h.onSynced();
    },
    closed: stream.closed.then(() => 'closed' as const),
    close: () => stream.close(),
  };
}

/** An existing session over `/ws`: opened, then subscribed; the caller sends the prompt once synced. */
export async function socketFeed(found: ServerDiscovery, sessionId: string, profile: { profile?: string }): Promise<SetupResult> {
  // `ws` through require, and only here: its CommonJS entry from ESM starts Node's CJS export scanner, and a new session's run needs no socket.
  const WebSocket = createRequire(import.meta.url)('ws') as WebSocketCtor;
  const client = connectServer(found.url, found.token, { WebSocket, fetch: nodeFetch });
  let socketClosed!: () => void;
  const closed = new Promise<'closed'>((r) => (socketClosed = () => r('closed')));
  // No reconnect: a run lives as long as its turn, and a server that went away ends it.
  const socket = client.socket({ reconnect: false, onClose: () => socketClosed() });
  // serve.json only names a server (its pid may be reused): the socket's welcome proves one answers.
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(r, LIVENESS_TIMEOUT_MS, 'late')));
  const ready = await Promise.race([socket.ready(), closed, late]);
  clearTimeout(timer);
  if (ready !== undefined) {
    socket.close();
    return { fallback: `the server at ${found.url} does not answer (${ready === 'late' ? `no welcome within ${LIVENESS_TIMEOUT_MS} ms` : 'the live connection closed'})` };
  }
  let snap: SessionSnapshot;
  try {
    snap = (await client.api.openSession({ params: { id: sessionId }, body: profile })).snapshot;
  } catch (err) {
    socket.close();
    return { fallback: `the server at ${found.url} could not open the session (${(err as Error).message})` };
  }
  return {
    snap,
    sent: undefined,
    start(h) {
      socket.subscribe(snap.session.id, h);
    },
    closed,
    close: () => socket.close(),
  };
}
