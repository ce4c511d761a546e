import { describe, it, expect, vi } from 'vitest';
import { ROUTES, type RouteDef } from '../../src/server/contract/index.js';
import { raw, serve } from './helpers.js';

vi.setConfig({ testTimeout: 60_000 });

/** A concrete path for a route (params that name nothing: the guards must answer before any lookup). */
const pathOf = (def: RouteDef) =>
  def.path.replace(/:([A-Za-z]+)/g, (_, k: string) =>
    k === 'id' && def.path.startsWith('/api/rules') ? '1' : `nope-${k}`,
  );
const routes = Object.entries(ROUTES) as [string, RouteDef][];

describe('security: every route of the contract, on a real server', () => {
  it('no token and a wrong token → 401 unauthorized on every route but health', async () => {
    const { server } = await serve();
    for (const [name, def] of routes) {
      const none = await raw(server, pathOf(def), {
        method: def.method,
        token: null,
        ...(def.body ? { body: '{}' } : {}),
      });
      const wrong = await raw(server, pathOf(def), {
        method: def.method,
        token: 'x'.repeat(43),
        ...(def.body ? { body: '{}' } : {}),
      });
      if (def.role === 'none') {
        expect(none.status, name).toBe(200);
        continue;
      }
      expect([none.status, none.json.code], name).toEqual([401, 'unauthorized']);
      expect([wrong.status, wrong.json.code], name).toEqual([401, 'unauthorized']);
      expect(none.json.fix, name).toMatch(/token/);
    }
  });

  it('a foreign Host → 403 bad_host on every route, static files and health included', async () => {
    const { server } = await serve();
    for (const path of [...routes.map(([, d]) => pathOf(d)), '/', '/index.html', '/api/health']) {
      for (const host of ['evil.example:80', `attacker.test:${server.port}`, `127.0.0.1.nip.io:${server.port}`]) {
        const r = await raw(server, path, { headers: { host } });
        expect([r.status, r.json?.code], `${host} ${path}`).toEqual([403, 'bad_host']);
      }
    }
    // The names it does serve.
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`])
      expect((await raw(server, '/api/health', { headers: { host } })).status).toBe(200);
  });

  it("a foreign Origin → 403 bad_origin on every route; the server's own origin passes; no CORS headers", async () => {
    const { server } = await serve();
    for (const [name, def] of routes) {
      const r = await raw(server, pathOf(def), {
        method: def.method,
        headers: { origin: 'https://evil.example' },
        ...(def.body ? { body: '{}' } : {}),
      });
      expect([r.status, r.json.code], name).toEqual([403, 'bad_origin']);
      expect(r.headers['access-control-allow-origin'], name).toBeUndefined();
    }
    const own = await raw(server, '/api/me', { headers: { origin: server.origin } });
    expect(own.status).toBe(200);
    expect(own.headers['access-control-allow-origin']).toBeUndefined();
    const pre = await raw(server, '/api/sessions', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(403);
  });

  it('an observer token acting on any controller route → 403 forbidden', async () => {
    const { server } = await serve();
    const { token } = server.tokens.addEphemeral('observer', 'watcher');
    for (const [name, def] of routes.filter(([, d]) => d.role === 'controller')) {
      const r = await raw(server, pathOf(def), { method: def.method, token, ...(def.body ? { body: '{}' } : {}) });
      expect([r.status, r.json?.code, r.text.slice(0, 80)], name).toEqual([403, 'forbidden', expect.anything()]);
    }
    for (const [name, def] of routes.filter(([, d]) => d.role === 'observer' && !d.params)) {
      const r = await raw(server, pathOf(def), { method: def.method, token });
      expect(r.status, name).toBe(200);
    }
  });

  it('an invalid body → 400 invalid_body naming the field, on every route that takes one', async () => {
    const { server } = await serve();
    for (const [name, def] of routes.filter(([, d]) => d.body)) {
      const bad = await raw(server, pathOf(def), {
        method: def.method,
        body: '{"text": 5, "path": 7, "archived": "yes", "modelId": 1, "modeId": [], "rule": 1, "scope": "planet", "optionId": 3, "provider": 9}',
      });
      expect([bad.status, bad.json.code], name).toEqual([400, 'invalid_body']);
      expect(bad.json.data, name).toBeTruthy();
      const notJson = await raw(server, pathOf(def), { method: def.method, body: '{oops' });
      expect([notJson.status, notJson.json.code], name).toEqual([400, 'invalid_body']);
    }
  });

  it('a body over the limit → 413 too_large; a WebSocket frame over the limit closes that socket (1009)', async () => {
    const { server } = await serve({ maxBodyBytes: 1024, maxFrameBytes: 1024 });
    const r = await raw(server, '/api/workspaces', {
      method: 'POST',
      body: JSON.stringify({ path: 'x'.repeat(4096) }),
    });
    expect([r.status, r.json.code]).toEqual([413, 'too_large']);
    const { Probe } = await import('./helpers.js');
    const probe = new Probe(server);
    await probe.wait((m) => m.type === 'welcome');
    probe.ws.send('x'.repeat(4096));
    expect(await probe.closed).toBe(1009);
  });

  it('/ws needs the token too, and checks Host and Origin', async () => {
    const { server } = await serve();
    const { default: WebSocket } = await import('ws');
    const status = (headers: Record<string, string>, protocols: string[]) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws`, protocols, { headers });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
      });
    expect(await status({}, ['talaria'])).toBe(401);
    expect(await status({}, ['talaria', 'talaria.token.wrong'])).toBe(401);
    expect(await status({ host: 'evil.example' }, ['talaria', `talaria.token.${server.token}`])).toBe(403);
    expect(await status({ origin: 'https://evil.example' }, ['talaria', `talaria.token.${server.token}`])).toBe(403);
    expect(await status({ cookie: `talaria_token_${server.port}=${server.token}` }, ['talaria'])).toBe(101);
    // Another server's cookie (another port) is not this one's.
    expect(
      await status({ cookie: `talaria_token_1=${server.token}; talaria_token=${server.token}` }, ['talaria']),
    ).toBe(401);
    expect(await status({ authorization: `Bearer ${server.token}` }, [])).toBe(101);
    expect(await status({ origin: server.origin }, ['talaria', `talaria.token.${server.token}`])).toBe(101);
  });

  it('the token works from the cookie the page trades the URL fragment for; it is never in a response', async () => {
    const { server } = await serve();
    const r = await raw(server, '/api/me', {
      token: null,
      headers: { cookie: `other=1; talaria_token_${server.port}=${server.token}` },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ role: 'controller' });
    expect(r.text).not.toContain(server.token);
    const page = await raw(server, '/', { token: null });
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(server.token);
    // The placeholder page trades the token inline; the built web UI (dist/web) in its module script.
    const script = /<script type="module"[^>]*src="([^"]+)"/.exec(page.text)?.[1];
    const setter = script ? await raw(server, script, { token: null }) : page;
    expect(setter.status).toBe(200);
    expect(setter.text).toContain('/api/auth/cookie');
    expect(setter.text).not.toContain('document.cookie');
    expect(setter.text).not.toContain(server.token);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]{43}$/);
  });

  it('POST /api/auth/cookie trades a valid token for an HttpOnly, SameSite=Strict cookie named for this port; a bad one gets 401 and no cookie', async () => {
    const { server } = await serve();
    const good = await raw(server, '/api/auth/cookie', { method: 'POST', body: '{}' });
    expect(good.status).toBe(200);
    const set = String(good.headers['set-cookie']);
    expect(set).toMatch(new RegExp(`^talaria_token_${server.port}=`));
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
    expect(set).toMatch(/Path=\//);
    const bad = await raw(server, '/api/auth/cookie', { method: 'POST', body: '{}', token: 'x'.repeat(43) });
    expect(bad.status).toBe(401);
    expect(bad.headers['set-cookie']).toBeUndefined();
    // A cookie alone signs nothing in anew (the trade needs the token itself).
    const viaCookie = await raw(server, '/api/auth/cookie', {
      method: 'POST',
      body: '{}',
      token: null,
      headers: { cookie: `talaria_token_${server.port}=${server.token}` },
    });
    expect(viaCookie.status).toBe(200);
    expect(viaCookie.headers['set-cookie']).toBeUndefined();
    const out = await raw(server, '/api/auth/cookie', { method: 'DELETE', token: null });
    expect(String(out.headers['set-cookie'])).toMatch(new RegExp(`^talaria_token_${server.port}=;.*Max-Age=0`));
  });

  it('binds loopback by default; a non-loopback host needs TLS or --insecure', async () => {
    const { server } = await serve();
    expect(server.host).toBe('127.0.0.1');
    await expect(serve({ host: '0.0.0.0' })).rejects.toThrow(/tls-cert/);
  });
});
