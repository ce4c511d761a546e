/**
 * Issue 35 item 1: no input on any HTTP or upgrade path ends `talaria serve`. A malformed cookie
 * (`talaria_token=%`, which a page on any other 127.0.0.1 port can plant) threw URIError inside
 * the upgrade listener and the process exited; on HTTP it gave 500. Now: 401, the server runs on,
 * and a fast-check run of headers, cookies, paths and bodies against a real server gets no 5xx.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { ROUTE_TABLE } from '../../src/server/contract/index.js';
import { startCli, demoEnv, tempDir } from '../cli/helpers.js';
import { raw, serve } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });

/** One request as raw bytes (header values node's client would refuse), the status line's code. */
function rawRequest(port: number, head: string, body = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let got = '';
    sock.on('data', (c: Buffer) => {
      got += c.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(got);
      if (m) {
        sock.destroy();
        resolve(Number(m[1]));
      }
    });
    sock.on('error', () => resolve(0));
    sock.on('close', () => resolve(/^HTTP\/1\.1 (\d{3})/.test(got) ? Number(/^HTTP\/1\.1 (\d{3})/.exec(got)![1]) : 0));
    sock.setTimeout(20_000, () => reject(new Error(`no answer to ${JSON.stringify(head.slice(0, 200))}`)));
    sock.end(`${head}\r\n\r\n${body}`, 'latin1');
  });
}

const upgradeHead = (port: number, path: string, extra: string[]) =>
  [
    `GET ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    ...extra,
  ].join('\r\n');

describe('serve survives any request', () => {
  it('a malformed cookie on /ws and on /api is 401; the serve process keeps running (with --caps too)', async () => {
    for (const args of [['serve'], ['serve', '--caps']]) {
      const home = tempDir('guard-cookie');
      const run = startCli(args, { cwd: home, env: demoEnv(home) });
      await run.until((out) => /#token=/.test(out));
      const port = Number(/127\.0\.0\.1:(\d+)/.exec(run.stdout())![1]);
      for (const cookie of ['talaria_token=%', `talaria_token_${port}=%E0%A4%A`, `talaria_token_${port}=%`]) {
        expect(await rawRequest(port, upgradeHead(port, '/ws', [`Cookie: ${cookie}`])), cookie).toBe(401);
        expect(await rawRequest(port, upgradeHead(port, '/acp', [`Cookie: ${cookie}`])), cookie).toBe(401);
        expect(
          await rawRequest(port, [`GET /api/me HTTP/1.1`, `Host: 127.0.0.1:${port}`, `Cookie: ${cookie}`].join('\r\n')),
          cookie,
        ).toBe(401);
      }
      expect(await rawRequest(port, [`GET /api/health HTTP/1.1`, `Host: 127.0.0.1:${port}`].join('\r\n'))).toBe(200);
      expect(run.child.exitCode).toBeNull();
      run.child.kill('SIGTERM');
      const end = await run.done;
      expect([end.code, end.signal], end.stderr).toEqual([0, null]);
      expect(end.stderr).not.toMatch(/URIError|SES_UNCAUGHT|uncaught/i);
    }
  });

  it('a cookie planted with a narrower path (sent first) does not shadow the real one', async () => {
    const { server } = await serve();
    const name = `talaria_token_${server.port}`;
    const r = await raw(server, '/api/me', {
      token: null,
      headers: { cookie: `${name}=%E0%A4%A; ${name}=wrong; ${name}=${server.token}` },
    });
    expect(r.status).toBe(200);
  });

  it('fast-check: headers, cookies, paths and bodies on HTTP and upgrade paths never get a 5xx, and the server answers after', async () => {
    const { server } = await serve();
    const port = server.port;
    const routePaths = Object.values(ROUTE_TABLE).map((r) => r.path);
    const segment = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('%', '%E0%A4%A', '%00', '..', '%2e%2e', '%2F', 'nope', '~', '\u00e9'),
    );
    const path = fc.oneof(
      fc.constantFrom(...routePaths, '/', '/ws', '/acp', '/captp', '/index.html', '/api/agents/x/login/pty'),
      fc
        .tuple(fc.constantFrom(...routePaths), segment)
        .map(([p, s]) => p.replace(/:[A-Za-z]+/g, encodeURIComponent(s).slice(0, 20) || 'x')),
      fc.array(segment, { maxLength: 4 }).map((xs) => `/${xs.join('/')}`),
    );
    // Header values as a browser or a hostile client might send them (latin1 printable, no CR/LF).
    const value = fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n\0]/g, ''));
    const cookie = fc.oneof(
      value,
      fc
        .tuple(
          fc.constantFrom('talaria_token', `talaria_token_${port}`, 'x'),
          fc.oneof(value, fc.constantFrom('%', '%E0%A4%A', server.token)),
        )
        .map(([k, v]) => `${k}=${v}`),
    );
    const headers = fc.record(
      {
        authorization: fc.oneof(value, fc.constantFrom(`Bearer ${server.token}`, 'Bearer', 'Bearer %', 'Basic Og==')),
        cookie: fc.array(cookie, { maxLength: 4 }).map((cs) => cs.join('; ')),
        origin: fc.oneof(value, fc.constantFrom(server.origin, 'null', 'http://127.0.0.1:1')),
        'sec-websocket-protocol': fc.oneof(
          value,
          fc.constantFrom('talaria', `talaria, talaria.token.${server.token}`, 'talaria.token.%'),
        ),
        'content-type': fc.constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=x', '%'),
        'x-forwarded-for': value,
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      fc.constant(''),
      fc.json(),
      fc.string({ maxLength: 200 }),
      fc.constantFrom('{', '{"text":1}', '{"path":"/etc"}', 'null', '[]'),
    );
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD');
    const safeValue = (v: string) => v.replace(/[^\x20-\x7e\x80-\xff]/g, '?');
    let n = 0;
    await fc.assert(
      fc.asyncProperty(method, path, headers, body, fc.boolean(), async (m, p, h, b, upgrade) => {
        n++;
        const extra = Object.entries(h).map(([k, v]) => `${k}: ${safeValue(v)}`);
        const target = safeValue(p).replace(/ /g, '%20') || '/';
        let status: number;
        if (upgrade) status = await rawRequest(port, upgradeHead(port, target, extra));
        else {
          // Writing actions with the real token are not the point here (they would start agents): GET/HEAD/OPTIONS only then.
          const writes = !['GET', 'HEAD', 'OPTIONS'].includes(m);
          const hs = writes
            ? extra.filter((x) => !x.toLowerCase().startsWith('authorization') && !x.includes(server.token))
            : extra;
          const bytes = Buffer.byteLength(b, 'latin1');
          status = await rawRequest(
            port,
            [`${m} ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...hs, `Content-Length: ${bytes}`].join('\r\n'),
            b,
          );
        }
        // 0: the server closed a connection that was upgraded (a real token on /ws or /acp); never a 5xx.
        expect(
          status === 0 || status === 101 || (status >= 200 && status < 500),
          `${upgrade ? 'upgrade' : m} ${target} ${JSON.stringify(h)} → ${status}`,
        ).toBe(true);
      }),
      { numRuns: 400, seed: 35 },
    );
    expect(n).toBe(400);
    expect((await raw(server, '/api/health')).status).toBe(200);
  });
});
