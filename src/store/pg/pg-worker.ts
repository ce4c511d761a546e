/**
 * The PostgreSQL connection of a store, on a thread of its own: node-postgres is asynchronous and
 * the store's repositories are not, so the main thread posts a query and waits on a shared cell
 * (sync-client.ts). One connection, so a transaction's statements run in order on it. When the
 * server goes away it answers `unavailable` at once and reconnects in the background.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import type { PgAnswer, PgInit, PgRequest, PgStatement } from './protocol.js';

// BIGINT (ms times, seqs, ids, COUNT) and NUMERIC (SUM of BIGINTs) as JS numbers, as SQLite gives
// them: the store's values stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, Number);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, Number);

const init = workerData as PgInit;
const ctl = new Int32Array(init.ctl);
let client: pg.Client | undefined;
let connecting: Promise<pg.Client | undefined> | undefined;
/**
 * The connection a transaction was begun on. Its later statements run there or fail: after a
 * reconnect they would run outside it, one by one in autocommit, and its COMMIT would only warn —
 * half a batch kept, the other half lost, and no error. So they fail until the caller rolls back.
 */
let txConn: pg.Client | undefined;
/** Why the server refused the last connection, when it said (SQLSTATE and message). */
let refused: { code: string; message: string } | undefined;

function connect(): Promise<pg.Client | undefined> {
  connecting ??= (async () => {
    // Pipelined: a message's statements (a transaction's held writes, then the one whose answer is
    // needed) go out together, one round trip to the server instead of one each.
    const config: pg.ClientConfig & { pipeline: boolean } = {
      connectionString: init.url,
      connectionTimeoutMillis: init.connectTimeoutMs,
      pipeline: true, // in pg 8.23 (package.json pins it), not yet in @types/pg
    };
    const c = new pg.Client(config);
    // A dropped connection is an event, not a throw: forget it; the next query reconnects.
    c.on('error', () => {
      if (client === c) client = undefined;
    });
    try {
      await c.connect();
      // Per connection, so a reconnect keeps them (a read-only store stays read-only).
      for (const sql of init.setup ?? []) await c.query(sql);
      client = c;
      return c;
    } catch (e) {
      // The server refused (no such database, bad password): an answer, not an outage to wait out.
      const code = (e as { code?: unknown }).code;
      refused =
        typeof code === 'string' && /^(28|3D)[0-9A-Z]{3}$/.test(code)
          ? { code, message: (e as Error).message }
          : undefined;
      await c.end().catch(() => undefined);
      return undefined;
    } finally {
      connecting = undefined;
    }
  })();
  return connecting;
}

function answer(a: PgAnswer): void {
  init.answers.postMessage(a);
  Atomics.store(ctl, 0, a.id);
  Atomics.notify(ctl, 0);
}

/** Named: the connection parses a repository's statement once. Several statements (no values) answer with the last. */
async function one(c: pg.Client, st: PgStatement): Promise<pg.QueryResult> {
  const out = await c.query({ text: st.text, values: [...st.values], ...(st.name ? { name: st.name } : {}) });
  return Array.isArray(out) ? (out[out.length - 1] as pg.QueryResult) : out;
}

const LOST_IN_TX = {
  code: '08003',
  message: 'the connection to PostgreSQL was lost inside a transaction (it was rolled back)',
};

/** Runs `st`, following where a transaction begins and ends (the texts sql-pg.ts sends). */
async function track(c: pg.Client, st: PgStatement): Promise<pg.QueryResult> {
  const ends = st.text === 'COMMIT' || st.text === 'ROLLBACK';
  try {
    const res = await one(c, st);
    if (st.text === 'BEGIN') txConn = c;
    return res;
  } finally {
    if (ends) txConn = undefined;
  }
}

async function run(r: PgRequest): Promise<PgAnswer> {
  if (txConn && txConn !== client) {
    txConn = undefined;
    const first = (r.before ?? [r])[0]!;
    // The caller's ROLLBACK of the lost transaction: the server already did it.
    if (first.text === 'ROLLBACK' && !r.before) return { id: r.id, rows: [], rowCount: 0 };
    return { id: r.id, error: LOST_IN_TX };
  }
  const c = client ?? (await connect());
  if (!c) return { id: r.id, error: refused ?? { code: 'unavailable', message: 'no connection to PostgreSQL' } };
  try {
    // All sent at once; answered in order. After a failure inside the transaction the server runs
    // none of the later ones (25P02, and COMMIT rolls back): the first failure is the answer.
    const sent = [...(r.before ?? []), r].map((st) => track(c, st));
    for (const p of sent) p.catch(() => undefined);
    const counts: number[] = [];
    for (const p of sent.slice(0, -1)) counts.push((await p).rowCount ?? 0);
    const res = await sent[sent.length - 1]!;
    return {
      id: r.id,
      rows: res.rows as Record<string, unknown>[],
      rowCount: res.rowCount ?? 0,
      ...(r.before ? { counts } : {}),
    };
  } catch (e) {
    const err = e as { code?: string; message?: string };
    // A query that lost its connection is `unavailable` too: whether it ran is for the caller to find out.
    const code = err.code ?? (client === c ? 'error' : 'unavailable');
    return { id: r.id, error: { code, message: err.message ?? String(e) } };
  }
}

// Loaded: the main thread's first query starts its clock now (slot 1; slot 0 is the answered id).
Atomics.store(ctl, 1, 1);
Atomics.notify(ctl, 1);

// Requests come one at a time (the main thread waits for each), so they run in order.
parentPort!.on('message', (m: PgRequest | { close: true }) => {
  if ('close' in m) {
    void (client?.end() ?? Promise.resolve()).finally(() => process.exit(0));
    return;
  }
  void run(m).then(answer);
});
