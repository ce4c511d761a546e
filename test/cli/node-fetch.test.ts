import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeFetch } from '../../src/cli/node-fetch.js';
import { connectServer, ServerError } from '../../src/server/client/index.js';

/** The run's fetch over node:http answers what the typed client reads, like fetch would. */
let server: Server;
let base: string;
const seen: { method?: string; url?: string; auth?: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, body });
      if (req.url === '/api/health')
        return res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"ok":true,"name":"talaria","version":"9","uptimeMs":1}');
      if (req.url?.startsWith('/api/sessions/s%201/export'))
        return res.writeHead(200, { 'content-type': 'text/markdown' }).end('# héllo');
      if (req.url === '/api/hang') return; // never answers
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"code":"not_found","message":"no such session","fix":"list them"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('nodeFetch', () => {
  it('carries method, headers and body, and answers JSON and text', async () => {
    const c = connectServer(base, 'tok', { fetch: nodeFetch });
    expect(await c.api.health()).toMatchObject({ ok: true, name: 'talaria' });
    expect(await c.api.exportSession({ params: { id: 's 1' }, query: { format: 'md' } })).toBe('# héllo');
    await expect(c.api.cancel({ params: { id: 'x' } })).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
      fix: 'list them',
    });
    await expect(c.api.cancel({ params: { id: 'x' } })).rejects.toBeInstanceOf(ServerError);
    const cancel = seen.find((s) => s.url === '/api/sessions/x/cancel')!;
    expect(cancel).toMatchObject({ method: 'POST', auth: 'Bearer tok', body: '{}' });
  });

  it('a refused connection and an abort reject', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(nodeFetch(`http://127.0.0.1:${port}/api/health`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(nodeFetch(`${base}/api/hang`, { signal: AbortSignal.timeout(50) })).rejects.toThrow(/timeout|abort/i);
  });
});
