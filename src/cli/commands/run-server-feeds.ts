/**
 * How `talaria run` on a warm server sets up its session and gets its events (run-server.ts does
 * the rest): one `POST /api/run/stream` (its answer is the turn, line by line) after a health
 * check — a new session, or with `session` an existing one (`--session`); no WebSocket client is
 * loaded. Anything that fails before a prompt was sent answers 'fallback' (the run goes local); a
 * failure once the server may have taken the prompt is not retried (it would run twice).
 */
import { ServerError } from '../../server/client/index.js';
import type { SessionSnapshot, StreamEvent } from '../../server/contract/index.js';
import { checkAlive, postRunStream } from '../run-stream-client.js';
import { LIVENESS_TIMEOUT_MS, type ServerDiscovery } from '../server-discovery.js';

export interface FeedHandlers {
  onEvent(e: StreamEvent): void;
  /** The events of a gap, as a snapshot; `turnId`: the run's turn, when the server knows it. */
  onSnapshot(s: SessionSnapshot, turnId: string | undefined): void;
}

export interface Feed {
  snap: SessionSnapshot;
  /** The prompt the server took: a turn's id, or a queued prompt's. */
  sent: { id: string; queued: boolean };
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

/** A session (new, or `body.session`) and its prompt in one streamed request. */
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
    if (nothingSent(err))
      return { fallback: `the server at ${found.url} could not open the session (${(err as Error).message})` };
    return { failed: (err as Error).message };
  }
  return {
    snap: stream.answer.snapshot as SessionSnapshot,
    sent: stream.answer.turn,
    start(h) {
      stream.listen((m) => {
        if (m.type !== 'snapshot') return h.onEvent(m as StreamEvent);
        const gap = m as unknown as { snapshot: SessionSnapshot; turnId?: string };
        h.onSnapshot(gap.snapshot, gap.turnId);
      });
    },
    closed: stream.closed.then(() => 'closed' as const),
    close: () => stream.close(),
  };
}
