/**
 * A synchronous face on PostgreSQL for the store's repositories, which are synchronous (the
 * SQLite ones are, and every caller relies on it). Each query goes to the connection's worker
 * (pg-worker.ts) and the caller waits on a shared cell (Atomics.wait) for its answer: about
 * 0.2 ms for a read on loopback. Nothing blocks for long: a query waits at most `timeoutMs`,
 * and while one is still unanswered the next fails at once (`store_busy`) instead of queueing
 * behind a server that went away; the recorder keeps what it could not write and retries.
 */
import { MessageChannel, receiveMessageOnPort, type Worker } from 'node:worker_threads';
import { StoreError } from '../errors.js';
import { startStoreWorker } from '../worker-start.js';
import type { PgAnswer, PgInit, PgRequest, PgStatement } from './protocol.js';

export interface SyncPgOptions {
  /** How long one query may take before the caller gets `store_busy` (default 5 s). */
  timeoutMs?: number;
  /** How long the worker tries to connect before it answers `unavailable` (default 2 s). */
  connectTimeoutMs?: number;
  /** Statements run on each new connection (session settings). */
  setup?: string[];
  /** @internal Tests: the worker entry to run instead of pg-worker. */
  entry?: URL;
}

export interface PgResult {
  rows: Record<string, unknown>[];
  rowCount: number;
  /** Row counts of the statements sent `before` it. */
  counts?: number[];
}

export interface SyncPg {
  /** Runs one statement (`$1`… parameters) and returns its rows. Throws a StoreError. */
  query(text: string, values?: readonly unknown[], name?: string, before?: PgStatement[]): PgResult;
  /** Where it connects, without the password: for messages. */
  readonly where: string;
  readonly closed: boolean;
  close(): void;
}

/** The server's address for a message: user@host:port/db, never the password. */
/** How long the connection's thread may take to start before the first query gives up. */
const WORKER_START_MS = 30_000;

export function describePgUrl(url: string): string {
  try {
    // An empty host (`postgres://user@/db?host=/run/postgresql`: a unix socket) is no URL to WHATWG: name one to parse.
    const hostless = /^postgres(?:ql)?:\/\/(?:[^@/?]*@)?(?=[/?]|$)/i.exec(url);
    const u = new URL(hostless ? hostless[0] + '_' + url.slice(hostless[0].length) : url);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
    const host = (hostless ? '' : u.hostname) || new URLSearchParams(u.search).get('host') || 'localhost';
    if (host.startsWith('/')) return `postgres://${user}${u.pathname}?host=${host}`;
    return `postgres://${user}${host}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

export function openSyncPg(url: string, o: SyncPgOptions = {}): SyncPg {
  const timeoutMs = o.timeoutMs ?? 5_000;
  const where = describePgUrl(url);
  const ctlBuf = new SharedArrayBuffer(8);
  const ctl = new Int32Array(ctlBuf);
  const { port1: answers, port2 } = new MessageChannel();
  const init: PgInit = {
    url,
    ctl: ctlBuf,
    answers: port2,
    connectTimeoutMs: o.connectTimeoutMs ?? 2_000,
    ...(o.setup ? { setup: o.setup } : {}),
  };
  const worker: Worker = startStoreWorker(
    'pg/pg-worker',
    { workerData: init, transferList: [port2], stdout: false, stderr: false },
    o.entry,
  );
  // Answers are read synchronously (receiveMessageOnPort): the port never needs the event loop.
  worker.unref();
  answers.unref();
  let nextId = 0;
  /** The id of a query that timed out and has not been answered yet. */
  let stalled: number | undefined;
  let closed = false;
  let started = false;

  /** The worker has loaded (slot 1): its start (~0.3 s under tsx, more on a busy machine) is not a query's time. */
  function awaitStart(): boolean {
    const deadline = Date.now() + WORKER_START_MS;
    while (Atomics.load(ctl, 1) === 0) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw busy(`could not be reached: its connection thread did not start within ${WORKER_START_MS} ms`);
      Atomics.wait(ctl, 1, 0, left);
    }
    return true;
  }

  const busy = (why: string) =>
    new StoreError(
      'store_busy',
      `PostgreSQL at ${where} ${why}`,
      { where },
      {
        fix: 'check that the server is up; Talaria retries what it could not record',
      },
    );

  /** Query `id`'s answer; answers of queries that timed out are dropped (their callers have gone on). */
  function take(id: number): PgAnswer | undefined {
    let found: PgAnswer | undefined;
    for (let m = receiveMessageOnPort(answers); m; m = receiveMessageOnPort(answers)) {
      const a = m.message as PgAnswer;
      if (a.id === id) found = a;
    }
    return found;
  }

  return {
    where,
    get closed() {
      return closed;
    },
    query(text, values = [], name, before) {
      if (closed) throw new StoreError('closed', 'the store is closed');
      if (stalled !== undefined) {
        // The stalled query's answer, if it came, is dropped: its caller has gone on.
        if (Atomics.load(ctl, 0) >= stalled) stalled = undefined;
        else throw busy(`has not answered a query for more than ${timeoutMs} ms`);
      }
      if (!started) started = awaitStart();
      const id = ++nextId;
      const req: PgRequest = { id, text, values, ...(name ? { name } : {}), ...(before?.length ? { before } : {}) };
      worker.postMessage(req);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const seen = Atomics.load(ctl, 0);
        if (seen >= id) break;
        const left = deadline - Date.now();
        if (left <= 0 || Atomics.wait(ctl, 0, seen, left) === 'timed-out') {
          if (Atomics.load(ctl, 0) >= id) break;
          stalled = id;
          throw busy(`did not answer within ${timeoutMs} ms`);
        }
      }
      const a = take(id);
      if (!a) throw new StoreError('store_io', `PostgreSQL at ${where}: the answer to a query was lost`, { where });
      if ('error' in a) {
        if (a.error.code === 'unavailable') throw busy(`is not reachable (${a.error.message})`);
        throw new StoreError('store_io', `PostgreSQL at ${where}: ${a.error.message}`, {
          where,
          sqlstate: a.error.code,
        });
      }
      return { rows: a.rows, rowCount: a.rowCount, ...(a.counts ? { counts: a.counts } : {}) };
    },
    close() {
      if (closed) return;
      closed = true;
      worker.postMessage({ close: true });
    },
  };
}
