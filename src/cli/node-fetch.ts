/**
 * A fetch for the server client over node:http. Node 20's global fetch loads undici on first use
 * (about a tenth of a second of CPU), which a `talaria run` on a warm server feels; the client
 * reads only status, headers and the body (ResponseLike), so a plain request does. Keep-alive
 * reuses one connection for the run's few calls (an idle kept socket is unref'd: it never holds
 * the process open).
 */
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import type * as Https from 'node:https';
import { createRequire } from 'node:module';
import type { FetchLike, ResponseLike } from '../server/client/index.js';

/** One kept connection for a run's calls (health, the run stream, answers to permission asks). */
export const keepAliveAgent = new Agent({ keepAlive: true });

/** node:https only for a server served over TLS: loading it (tls, crypto) is start-up every plain run would pay. */
export function httpsRequest(
  url: string | URL,
  o: Https.RequestOptions,
  onResponse?: (res: IncomingMessage) => void,
): ReturnType<typeof Https.request> {
  return (createRequire(import.meta.url)('node:https') as typeof Https).request(url, o, onResponse);
}

function answer(res: IncomingMessage, body: string): ResponseLike {
  const status = res.statusCode ?? 0;
  return {
    ok: status >= 200 && status < 300,
    status,
    statusText: res.statusMessage ?? '',
    headers: { get: (name) => [res.headers[name.toLowerCase()]].flat().join(', ') || null },
    json: () => Promise.resolve(JSON.parse(body) as unknown),
    text: () => Promise.resolve(body),
  };
}

export const nodeFetch: FetchLike = (input, init = {}) =>
  new Promise((resolve, reject) => {
    const url = new URL(input);
    const tls = url.protocol === 'https:';
    const headers = (init.headers ?? {}) as Record<string, string>;
    const req = (tls ? httpsRequest : httpRequest)(
      url,
      { method: init.method ?? 'GET', headers, ...(tls ? {} : { agent: keepAliveAgent }) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(answer(res, Buffer.concat(chunks).toString('utf8'))));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    const signal = init.signal;
    if (signal) {
      if (signal.aborted) req.destroy(signal.reason as Error);
      else signal.addEventListener('abort', () => req.destroy(signal.reason as Error), { once: true });
    }
    if (typeof init.body === 'string') req.end(init.body);
    else req.end();
  });
