/**
 * Control goes to the owner (issue 39 item 3, docs/fleet.md §3), with real parts: two `talaria
 * serve` hosts on loopback sharing one throwaway PostgreSQL. A session live on B is owned by B (its
 * writer lease names B's fleet host); A never takes it over while B is online.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSyncPg, type SyncPg } from '../../src/store/pg/sync-client.js';
import { startCluster, type Cluster } from '../store/pg/cluster.js';
import { demoEnv, startCli, tempDir, type CliRun } from '../cli/helpers.js';

let cluster: Cluster;
let db: SyncPg;
let url: string;
const running: CliRun[] = [];

interface Host {
  home: string;
  serve: CliRun;
  origin: string;
  token: string;
  name: string;
  id: string;
}

async function host(name: string, extra: Record<string, string> = {}): Promise<Host> {
  const home = tempDir(`fwd-${name}`);
  const env = demoEnv(home, {
    TALARIA_FLEET_HEARTBEAT_MS: '200',
    TALARIA_FLEET_LEASE_MS: '3000',
    ...extra,
    TALARIA_STORE: url,
  });
  const serve = startCli(['serve', '--port', '0'], { cwd: home, env });
  running.push(serve);
  await serve.until((out) => /fleet: host /.test(out));
  const m = /(http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)/.exec(serve.stdout())!;
  const f = /fleet: host (.+) \((h_[0-9a-f-]+)\)/.exec(serve.stdout())!;
  return { home, serve, origin: m[1]!, token: m[2]!, name: f[1]!, id: f[2]! };
}

async function api(h: Host, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${h.origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${h.token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

/** A new session live on `h`, in its home folder. */
async function liveSession(h: Host): Promise<string> {
  const w = await api(h, 'POST', '/api/workspaces', { path: h.home });
  expect(w.status).toBe(200);
  const s = await api(h, 'POST', `/api/workspaces/${w.json.workspace?.id ?? w.json.id}/sessions`, { provider: 'demo' });
  expect(s.status).toBe(200);
  return s.json.snapshot.session.id as string;
}

let a: Host;
let b: Host;

beforeAll(async () => {
  cluster = startCluster();
  const admin = openSyncPg(cluster.url);
  admin.query('CREATE DATABASE fwd');
  admin.close();
  url = cluster.url.replace('/postgres?', '/fwd?');
  [a, b] = await Promise.all([host('a'), host('b')]);
  db = openSyncPg(url);
}, 60_000);

afterAll(async () => {
  try {
    db?.close();
    for (const r of running) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    await Promise.all(running.map((r) => r.done));
  } finally {
    cluster?.destroy();
  }
});

describe('a session live on host B', () => {
  it('is owned by B: its lease names B, and A refuses to take it over (session_owned_elsewhere, 409, naming B)', async () => {
    const sid = await liveSession(b);
    const lease = db.query('SELECT host FROM session_leases WHERE session_id = $1', [sid]).rows[0] as { host: string };
    expect(lease.host).toBe(b.id);
    for (const [path, body] of [
      [`/api/sessions/${sid}/open`, {}],
      [`/api/sessions/${sid}/prompt`, { text: 'hello' }],
    ] as const) {
      const r = await api(a, 'POST', path, body);
      expect(r.status).toBe(409);
      expect(r.json).toMatchObject({ code: 'busy' });
      expect(r.json.message).toContain(`live on host ${b.name}`);
    }
    // B still holds it and drives it.
    expect(
      (db.query('SELECT host FROM session_leases WHERE session_id = $1', [sid]).rows[0] as { host: string }).host,
    ).toBe(b.id);
    expect((await api(b, 'POST', `/api/sessions/${sid}/prompt`, { text: 'hello' })).status).toBe(200);
  });
});
