/**
 * What `talaria serve` offers beyond the defaults, on real servers: HTTPS and WSS with a
 * certificate made by openssl in the test, the warning for plain HTTP off loopback (on every
 * start), heartbeats dropping a client that stops answering pings, and session lists merged
 * with the agent's own `session/list` (`agent=true`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { WS_CLOSE } from '../../src/server/contract/index.js';
import { makeHarness, place } from '../harness/helpers.js';
import { serve, tempDir } from './helpers.js';
import type { Logger } from '../../src/protocol/types.js';

vi.setConfig({ testTimeout: 60_000 });

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A self-signed certificate for 127.0.0.1 (one day), made with the machine's openssl. */
function selfSigned(): { cert: string; key: string } {
  const dir = tempDir('tls');
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

function recorder(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return {
    warnings,
    debug: () => undefined,
    info: () => undefined,
    warn: (m) => void warnings.push(m),
    error: () => undefined,
  };
}

function httpsGet(
  url: string,
  ca: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serve options', () => {
  it.skipIf(!hasOpenssl())(
    '--tls-cert/--tls-key: HTTPS and WSS with the certificate; plain HTTP on that port gets nothing',
    async () => {
      const tls = selfSigned();
      const ca = readFileSync(tls.cert, 'utf8');
      const { server } = await serve({ tls });
      expect(server.origin).toBe(`https://127.0.0.1:${server.port}`);
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/#token=/);
      const health = await httpsGet(`${server.origin}/api/health`, ca);
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toMatchObject({ ok: true, name: 'talaria' });
      expect((await httpsGet(`${server.origin}/api/me`, ca, { authorization: `Bearer ${server.token}` })).status).toBe(
        200,
      );
      expect((await httpsGet(`${server.origin}/api/me`, ca)).status).toBe(401);
      // A client that does not trust the certificate is refused by TLS itself.
      await expect(httpsGet(`${server.origin}/api/health`, '')).rejects.toThrow(/certificate/i);

      const ws = new WebSocket(`wss://127.0.0.1:${server.port}/ws`, ['talaria', `talaria.token.${server.token}`], {
        ca,
      });
      const welcome = await new Promise<{ type: string }>((resolve, reject) => {
        ws.once('message', (d) => resolve(JSON.parse(d.toString()) as { type: string }));
        ws.once('error', reject);
      });
      expect(welcome.type).toBe('welcome');
      ws.close();

      const plain = await fetch(`http://127.0.0.1:${server.port}/api/health`).then(
        (r) => r.status,
        () => 'refused',
      );
      expect(plain).not.toBe(200);
    },
  );

  it('--insecure on a non-loopback address: a warning on every start, none with TLS or on loopback', async () => {
    const p = place();
    for (let i = 0; i < 2; i++) {
      const logger = recorder();
      const { server } = await serve({ p, host: '0.0.0.0', insecure: true, logger });
      expect(logger.warnings).toEqual([
        expect.stringMatching(/plain HTTP on 0\.0\.0\.0: the token and every session cross the network unencrypted/),
      ]);
      await server.close();
    }
    const quiet = recorder();
    await serve({ logger: quiet });
    if (hasOpenssl()) await serve({ host: '0.0.0.0', tls: selfSigned(), logger: quiet });
    expect(quiet.warnings).toEqual([]);
  });

  it('heartbeats: a client that stops answering pings is dropped; one that answers stays', async () => {
    const { server } = await serve({ heartbeatMs: 50 });
    const url = `${server.origin.replace(/^http/, 'ws')}/ws`;
    const open = (autoPong: boolean) => {
      const ws = new WebSocket(url, ['talaria', `talaria.token.${server.token}`], { autoPong });
      const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
      const welcomed = new Promise<void>((r) => ws.once('message', () => r()));
      return { ws, closed, welcomed };
    };
    const live = open(true);
    const dead = open(false);
    await Promise.all([live.welcomed, dead.welcomed]);
    expect(server.connections()).toBe(2);
    // The server closes it (4002) and then terminates the socket.
    expect([WS_CLOSE.dead, 1006]).toContain(await dead.closed);
    expect(live.ws.readyState).toBe(WebSocket.OPEN);
    expect(server.connections()).toBe(1);
    live.ws.close();
    await live.closed;
  });

  it("agent=true: a workspace's list merges the agent's session/list (sessions Talaria never stored), with the stored ones first", async () => {
    const p = place();
    // Another client of the same agent (its own Talaria home) made a session this server never stored.
    const other = makeHarness({ ...p, home: place().home });
    const foreign = await other.workspaces.open(p.userHome).newSession({ provider: 'demo' });
    await foreign.prompt('made elsewhere').result;
    const foreignId = foreign.agentSessionId;
    await other.close();

    const s = await serve({ p });
    const { workspace } = await s.client.api.openWorkspace({ body: { path: p.userHome } });
    await s.client.api.bindProvider({ params: { id: workspace.id }, body: { provider: 'demo' } });
    const { snapshot } = await s.client.api.createSession({ params: { id: workspace.id }, body: {} });
    const mine = snapshot.session.id;

    const storeOnly = await s.client.api.listSessions({ query: { workspace: workspace.id } });
    expect(storeOnly.sessions.map((x) => x.id)).toEqual([mine]);
    const merged = await s.client.api.listSessions({ query: { workspace: workspace.id, agent: 'true' } });
    expect(merged.agentProblem).toBeUndefined();
    expect(merged.sessions.map((x) => x.id)).toEqual([mine, foreignId]);
    expect(merged.sessions[1]).toMatchObject({
      id: foreignId,
      provider: 'demo',
      stored: false,
      atAgent: true,
      live: false,
      archived: false,
    });
  });
});
