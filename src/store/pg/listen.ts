/**
 * A change feed from PostgreSQL: one LISTEN connection of its own (asynchronous, on the event loop:
 * the store's synchronous worker connection must not sit in a LISTEN), which reconnects with
 * backoff when the server goes away. NOTIFY is not durable — what was sent while the connection was
 * down is gone — so after every reconnect `onResync` runs: the caller reloads what it shows.
 */
import pg from 'pg';
import type { Logger } from '../../protocol/types.js';
import { describePgUrl } from './sync-client.js';

export interface PgListenOptions {
  /** One notification's payload (the text given to pg_notify), in the order the server sent them. */
  onNotify: (payload: string) => void;
  /** The connection is back after a gap: notifications may have been missed. Not run for the first connect. */
  onResync?: () => void;
  logger?: Logger;
  /** First retry after a lost connection (ms, default 100); doubles up to `maxRetryMs`. */
  retryMs?: number;
  /** Longest wait between retries (ms, default 5000). */
  maxRetryMs?: number;
  connectTimeoutMs?: number;
}

export interface PgListener {
  /** Resolves once the first LISTEN is in place (rejects if closed first). */
  readonly ready: Promise<void>;
  /** True while a LISTEN connection is up. */
  readonly connected: boolean;
  close(): Promise<void>;
}

/** Channel names are identifiers we choose; anything else would need quoting in LISTEN. */
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

export function listenPg(url: string, channel: string, o: PgListenOptions): PgListener {
  if (!CHANNEL.test(channel)) throw new Error(`listenPg: bad channel name ${JSON.stringify(channel)}`);
  const where = describePgUrl(url);
  const first = o.retryMs ?? 100;
  const max = o.maxRetryMs ?? 5_000;
  let client: pg.Client | undefined;
  let closed = false;
  let everUp = false;
  let wait = first;
  let timer: NodeJS.Timeout | undefined;
  let markReady!: () => void;
  let failReady!: (e: Error) => void;
  const ready = new Promise<void>((res, rej) => {
    markReady = res;
    failReady = rej;
  });
  // A caller that never awaits `ready` (it only wants the feed) must not see an unhandled rejection.
  ready.catch(() => undefined);

  function retry(): void {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, wait);
    timer.unref();
    wait = Math.min(wait * 2, max);
  }

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: o.connectTimeoutMs ?? 2_000 });
    c.on('notification', (n) => {
      if (n.channel !== channel) return;
      try {
        o.onNotify(n.payload ?? '');
      } catch (e) {
        // A throw here would land in node-postgres's parser and drop the connection.
        o.logger?.error('store: a change feed callback threw', { error: String(e) });
      }
    });
    // A dropped connection is an event: forget it and come back.
    const lost = (why: string) => {
      if (client !== c) return;
      client = undefined;
      o.logger?.warn('store: change feed lost its connection', { where, why });
      c.removeAllListeners('end');
      void c.end().catch(() => undefined);
      retry();
    };
    c.on('error', (e) => lost(e.message));
    c.on('end', () => lost('connection ended'));
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
    } catch (e) {
      await c.end().catch(() => undefined);
      if (!closed) {
        o.logger?.debug('store: change feed cannot connect yet', { where, error: (e as Error).message });
        retry();
      }
      return;
    }
    if (closed) {
      await c.end().catch(() => undefined);
      return;
    }
    client = c;
    wait = first;
    if (everUp) {
      o.logger?.info('store: change feed reconnected', { where });
      o.onResync?.();
    } else {
      everUp = true;
      markReady();
    }
  }

  void connect();
  return {
    ready,
    get connected() {
      return client !== undefined;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      if (!everUp) failReady(new Error('the change feed was closed before it connected'));
      const c = client;
      client = undefined;
      if (c) {
        c.removeAllListeners('end');
        await c.end().catch(() => undefined);
      }
    },
  };
}
