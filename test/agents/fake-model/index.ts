/**
 * A loopback fake model server speaking Anthropic Messages, OpenAI Chat Completions, OpenAI
 * Responses and Gemini, steered by tokens in the prompt (see steer.ts). Only the model is fake:
 * real agents talk to it through their own SDKs, so the wire shapes follow the real providers.
 * Paths are matched by suffix, so base URLs with or without `/v1` both work.
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { silentLogger, type Logger } from '../../../src/protocol/types.js';
import { isObj } from './common.js';
import { route } from './routes.js';
import type { IdGen, LoggedRequest, Reply } from './types.js';

export type { Action, ApiName, LoggedRequest } from './types.js';
export { decide, parseTokens, DEFAULT_WRITE_CONTENT } from './steer.js';
export { pickTool, planToolCall, addFilePatch } from './tools.js';

export interface FakeModelOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  log?: Logger;
  /** Delay before each chunk of a `[[slow: N]]` stream. */
  slowChunkMs?: number;
  /** Model ids listed by the model-list endpoints. */
  models?: string[];
}

export interface FakeModel {
  /** `http://host:port` (no path: agents append `/v1`, `/v1beta` themselves). */
  url: string;
  port: number;
  requests: LoggedRequest[];
  /** Resolves with the first logged request (past or future) matching `pred`, re-checked on every change. */
  waitFor(pred: (r: LoggedRequest) => boolean): Promise<LoggedRequest>;
  close(): Promise<void>;
  /** Forgets the logged requests. */
  reset(): void;
}

export const DEFAULT_MODELS = [
  'fake-model',
  'claude-sonnet-4-5',
  'claude-haiku-4-5',
  'gpt-5.4',
  'gpt-4o-mini',
  'gemini-2.5-pro',
  'gemini-2.5-flash',
];
const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'cookie',
]);

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        // Some SDKs compress request bodies; zstd (Node 22+) is left out, the JSON parse then fails loudly.
        const buf = Buffer.concat(chunks);
        const enc = String(req.headers['content-encoding'] ?? '').toLowerCase();
        const plain =
          enc === 'gzip'
            ? gunzipSync(buf)
            : enc === 'deflate'
              ? inflateSync(buf)
              : enc === 'br'
                ? brotliDecompressSync(buf)
                : buf;
        resolve(plain.toString('utf8'));
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    req.on('error', reject);
  });
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

export async function startFakeModel(opts: FakeModelOptions = {}): Promise<FakeModel> {
  const log = opts.log ?? silentLogger;
  const slowMs = opts.slowChunkMs ?? 100;
  const models = opts.models ?? DEFAULT_MODELS;
  const requests: LoggedRequest[] = [];
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  const open = new Set<AbortController>();
  let seq = 0;
  let idn = 0;
  const ids: IdGen = (prefix) => `${prefix}${String(++idn).padStart(6, '0')}`;
  const changed = (): boolean => changes.emit('change');

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined) headers[k] = SECRET_HEADERS.has(k) ? '[redacted]' : Array.isArray(v) ? v.join(', ') : v;
    }
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = k === 'key' ? '[redacted]' : v;
    const raw = await readBody(req).catch((err: unknown) => `<unreadable body: ${String(err)}>`);
    let body: unknown;
    let badJson = false;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      body = raw;
      badJson = true;
    }
    const r = route(method, url.pathname, url.searchParams, req.headers, isObj(body) ? body : {}, models);
    const entry: LoggedRequest = {
      seq: ++seq,
      method,
      path: url.pathname,
      query,
      headers,
      body,
      api: r?.api ?? 'unknown',
      stream: r?.stream ?? false,
      action: r?.action ?? { kind: 'not_found' },
      status: 0,
      framesSent: 0,
      done: false,
      aborted: false,
      ...(r?.model !== undefined ? { model: r.model } : {}),
    };
    let reply: Reply;
    if (!r) {
      reply = {
        status: 404,
        json: {
          error: {
            message: `Fake model: no route for ${method} ${url.pathname}`,
            type: 'invalid_request_error',
            param: null,
            code: 'not_found',
          },
        },
      };
    } else if (badJson && method === 'POST') {
      entry.action = { kind: 'bad_json' };
      reply = r.error(400, 'Fake model: request body is not valid JSON', ids);
    } else {
      reply = r.reply(ids);
    }
    entry.status = reply.status;
    requests.push(entry);
    log.debug('fake-model request', {
      seq: entry.seq,
      method,
      path: entry.path,
      api: entry.api,
      action: entry.action.kind,
      status: reply.status,
    });
    changed();

    if (!('sse' in reply)) {
      entry.done = true;
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.json));
      changed();
      return;
    }
    const ac = new AbortController();
    open.add(ac);
    res.on('close', () => {
      if (!entry.done) {
        entry.aborted = true;
        ac.abort();
        changed();
      }
    });
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.flushHeaders();
    const eol = reply.eol ?? '\n';
    try {
      for (const f of reply.sse) {
        if (f.pace && slowMs > 0) await wait(slowMs, ac.signal);
        if (ac.signal.aborted) return;
        const data = typeof f.data === 'string' ? f.data : JSON.stringify(f.data);
        res.write((f.event !== undefined ? `event: ${f.event}${eol}` : '') + `data: ${data}${eol}${eol}`);
        entry.framesSent++;
        changed();
      }
      // Marked before end() so a client that has read the whole body sees `done`.
      entry.done = true;
      res.end();
      changed();
    } finally {
      open.delete(ac);
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error('fake-model handler failed', { error: String(err) });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err), type: 'server_error', param: null, code: null } }));
    });
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closed = false;

  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    waitFor(pred) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const hit = requests.find(pred);
          if (hit) {
            stop();
            resolve(hit);
          } else if (closed) {
            stop();
            reject(new Error('fake model closed before a matching request'));
          }
        };
        const stop = (): void => {
          changes.off('change', check);
        };
        changes.on('change', check);
        check();
      });
    },
    reset() {
      requests.length = 0;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const ac of open) ac.abort();
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await done;
      changed();
    },
  };
}
