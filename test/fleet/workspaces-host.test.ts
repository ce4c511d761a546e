/**
 * A workspace is a path on one host (docs/fleet.md §2), with real parts: two `talaria serve`
 * processes on loopback sharing one throwaway PostgreSQL. Each lists only its own workspaces; the
 * same path on both is two rows; "Continue here" (POST /api/sessions/:id/branches) of the other
 * host's session runs in this host's workspace for its path, and fails with a 409 naming the path
 * when this host does not have it.
 */
import { rmSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { openSyncPg } from '../../src/store/pg/sync-client.js';
import { tempDir } from '../cli/helpers.js';
import { fleetSuite, type FleetHost as Host } from './fleet-serve.js';

vi.setConfig({ testTimeout: 60_000 });

const suite = fleetSuite();
const fleet = suite.fleet;

// The default heartbeat and lease: nothing here waits for a host to go offline.
const host = (url: string, name: string): Promise<Host> =>
  fleet.start(url, `ws-${name}`, { env: { TALARIA_FLEET_HEARTBEAT_MS: '5000', TALARIA_FLEET_LEASE_MS: '15000' } });

async function call(h: Host, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${h.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: r.status, json: await r.json() };
}

interface Ws {
  id: string;
  path: string;
}
const open = async (h: Host, path: string): Promise<Ws> => {
  const r = await call(h, 'POST', '/api/workspaces', { path });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json.workspace as Ws;
};
const listed = async (h: Host): Promise<string[]> =>
  ((await call(h, 'GET', '/api/workspaces')).json.workspaces as Ws[]).map((w) => w.path).sort();
const newSession = async (h: Host, ws: Ws): Promise<string> => {
  const r = await call(h, 'POST', `/api/workspaces/${ws.id}/sessions`, { provider: 'demo' });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json.snapshot.session.id as string;
};

describe('workspaces in a fleet of two talaria serve hosts', () => {
  it('each host lists its own; one path is a row per host; Continue here uses this host’s or names the missing path', async () => {
    const url = suite.cluster.url;
    const a = await host(url, 'a');
    const b = await host(url, 'b');
    const shared = tempDir('fleet-ws-shared');
    const onlyA = tempDir('fleet-ws-only-a');
    const onlyB = tempDir('fleet-ws-only-b');

    const sharedA = await open(a, shared);
    await open(a, onlyA);
    const sharedB = await open(b, shared);
    const onB = await open(b, onlyB);
    expect(sharedB.id).not.toBe(sharedA.id);
    // Each serve opened its own folder (its cwd) too.
    expect(await listed(a)).toEqual([a.home, onlyA, shared].sort());
    expect(await listed(b)).toEqual([b.home, onlyB, shared].sort());
    const pg = openSyncPg(url);
    try {
      const rows = pg.query('SELECT host_id FROM workspaces WHERE path = $1', [shared]).rows as { host_id: string }[];
      expect(rows).toHaveLength(2);
      expect(new Set(rows.map((r) => r.host_id)).size).toBe(2);
      expect(rows.every((r) => r.host_id.startsWith('h_'))).toBe(true);
    } finally {
      pg.close();
    }

    // B's session in the shared path, continued on A: in A's workspace for that path.
    const there = await newSession(b, sharedB);
    const cont = await call(a, 'POST', `/api/sessions/${there}/branches`, { provider: 'demo' });
    expect(cont.status, JSON.stringify(cont.json)).toBe(200);
    expect(cont.json.snapshot.session).toMatchObject({ workspaceId: sharedA.id });

    // B's session in a folder A does not have (gone from this machine: one disk stands for two).
    const lost = await newSession(b, onB);
    rmSync(onlyB, { recursive: true, force: true });
    const refused = await call(a, 'POST', `/api/sessions/${lost}/branches`, { provider: 'demo' });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: 'conflict', message: `${onlyB} does not exist on this host` });
    expect(refused.json.fix).toMatch(/this host/);
    // And A made no workspace for it.
    expect(await listed(a)).toEqual([a.home, onlyA, shared].sort());
  });
});
