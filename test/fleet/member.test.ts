/**
 * Two fleet members on one throwaway cluster, in one process (each with a store of its own, as
 * two hosts would have): each sees the other's host row and session statuses through
 * LISTEN/NOTIFY; a graceful stop shows offline at once; a stopped heartbeat shows offline after
 * the lease; a PostgreSQL restart resyncs the view.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostIdentity, mintJoinToken, startFleetMember, type FleetMember } from '../../src/fleet/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { openSyncPg } from '../../src/store/pg/sync-client.js';
import { startCluster, type Cluster } from '../store/pg/cluster.js';

vi.setConfig({ testTimeout: 60_000 });

let cluster: Cluster;
const stores: Store[] = [];
const members: FleetMember[] = [];
let dbs = 0;
beforeAll(() => {
  cluster = startCluster();
});
afterAll(async () => {
  try {
    for (const m of members) await m.stop();
    for (const s of stores) s.close();
  } finally {
    cluster?.destroy();
  }
});

function database(): string {
  const name = `member${++dbs}`;
  const admin = openSyncPg(cluster.url);
  admin.query(`CREATE DATABASE ${name}`);
  admin.close();
  return cluster.url.replace('/postgres?', `/${name}?`);
}

function member(url: string, name: string, o: { heartbeatMs?: number; leaseMs?: number } = {}) {
  const store = openStore({ url });
  stores.push(store);
  const home = mkdtempSync(join(tmpdir(), `talaria-member-${name}-`));
  const m = startFleetMember({
    store,
    storeUrl: url,
    identity: hostIdentity(home, { name }),
    // Every host but the fleet's first joins with a token (docs/fleet.md §5).
    joinToken: mintJoinToken(store, { ttlMs: 600_000 }).token,
    heartbeatMs: 100,
    leaseMs: 600,
    ...o,
  });
  members.push(m);
  return { m, store };
}

const statusOf = (m: FleetMember, id: string) => m.sessions().find((s) => s.id === id)?.status;
const onlineOf = (m: FleetMember, id: string) => m.hosts().find((h) => h.id === id)?.online;

describe('fleet members on one PostgreSQL', () => {
  it('see each other and each other’s session status; a graceful stop is offline at once', async () => {
    const url = database();
    const a = member(url, 'box-a');
    const b = member(url, 'box-b');
    await Promise.all([a.m.ready, b.m.ready]);
    await vi.waitFor(() => expect(onlineOf(a.m, b.m.hostId)).toBe(true), { timeout: 5_000 });
    const sid = b.store.sessions.create({ provider: 'demo', cwd: '/w' }).id;
    b.m.sessionStatus(sid, 'running');
    await vi.waitFor(() => expect(statusOf(a.m, sid)).toBe('running'), { timeout: 5_000 });
    expect(a.store.presence.hostOf(sid)).toBe(b.m.hostId);
    b.m.sessionStatus(sid, 'idle');
    await vi.waitFor(() => expect(statusOf(a.m, sid)).toBe('idle'), { timeout: 5_000 });
    // Heartbeats send no notification: a live b stays online on a well past the lease (600 ms) it last notified.
    const since = Date.now();
    await vi.waitFor(
      () => {
        const h = a.m.hosts().find((x) => x.id === b.m.hostId)!;
        expect(h.heartbeatAt).toBeGreaterThan(since + 1_000);
        expect(h.online).toBe(true);
      },
      { timeout: 5_000 },
    );
    expect(statusOf(a.m, sid)).toBe('idle');
    await b.m.stop();
    // At once: the notification of the stop, not the lease (600 ms) — a.m's view has it before any tick could.
    await vi.waitFor(() => expect(onlineOf(a.m, b.m.hostId)).toBe(false), { timeout: 500 });
    expect(statusOf(a.m, sid)).toBe('offline');
  });

  it('a host that stops beating is offline after its lease; a PostgreSQL restart resyncs the view', async () => {
    const url = database();
    const a = member(url, 'box-a');
    // b's heartbeat never comes (as a kill -9): its lease (800 ms) runs out on a's clock.
    const b = member(url, 'box-b', { heartbeatMs: 3_600_000, leaseMs: 800 });
    await Promise.all([a.m.ready, b.m.ready]);
    await vi.waitFor(() => expect(onlineOf(a.m, b.m.hostId)).toBe(true), { timeout: 5_000 });
    let changes = 0;
    a.m.onChange(() => changes++);
    await vi.waitFor(() => expect(onlineOf(a.m, b.m.hostId)).toBe(false), { timeout: 5_000 });
    // `online` is computed on read, so it can turn false before a's next tick reports the change.
    await vi.waitFor(() => expect(changes).toBeGreaterThan(0), { timeout: 2_000 });

    cluster.stop();
    cluster.start();
    // Written while a's feed may be down: a sees it after the resync at the latest.
    const c = member(url, 'box-c');
    await c.m.ready;
    await vi.waitFor(() => expect(onlineOf(a.m, c.m.hostId)).toBe(true), { timeout: 20_000 });
  });

  it('session rows another host writes reach the view at once; its own do not', async () => {
    const url = database();
    const a = member(url, 'box-a');
    const b = member(url, 'box-b');
    await Promise.all([a.m.ready, b.m.ready]);
    const sid = b.store.sessions.create({ provider: 'demo', cwd: '/w' }).id;
    let onA = 0;
    let onB = 0;
    a.m.onChange(() => onA++);
    b.m.onChange(() => onB++);
    b.store.sessions.setTitle(sid, 'renamed on b');
    b.store.sessions.archive(sid);
    // Told without a status change or a reload: the row's notification.
    await vi.waitFor(() => expect(onA).toBeGreaterThan(0), { timeout: 5_000 });
    // b's own writes: its hub told its clients; its view does not change for them.
    a.store.sessions.setTitle(sid, 'renamed on a');
    await vi.waitFor(() => expect(onB).toBeGreaterThan(0), { timeout: 5_000 });
    const seenB = onB;
    b.store.sessions.setTitle(sid, 'again on b');
    await vi.waitFor(() => expect(onA).toBeGreaterThan(1), { timeout: 5_000 });
    // A later write of a's: b's feed delivers in order, so its own notification came (and was skipped) before.
    a.store.sessions.setTitle(sid, 'again on a');
    await vi.waitFor(() => expect(onB).toBeGreaterThan(seenB), { timeout: 5_000 });
    expect(onB).toBe(seenB + 1);
  });

  it('status writes leave the caller at once, one write for a burst; while the store is out the heartbeat retries', async () => {
    const url = database();
    const a = member(url, 'box-a');
    // A heartbeat that only the test runs.
    const b = member(url, 'box-b', { heartbeatMs: 3_600_000, leaseMs: 3_600_000 });
    await Promise.all([a.m.ready, b.m.ready]);
    const sid = b.store.sessions.create({ provider: 'demo', cwd: '/w' }).id;
    const tx = vi.spyOn(b.store, 'transaction');
    b.m.sessionStatus(sid, 'running');
    b.m.sessionStatus(sid, 'asking');
    b.m.sessionStatus(sid, 'running');
    expect(tx).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(statusOf(a.m, sid)).toBe('running'), { timeout: 5_000 });
    expect(tx).toHaveBeenCalledTimes(1);

    // The store goes: the first write fails, later changes wait for the heartbeat instead of each trying.
    cluster.stop();
    tx.mockClear();
    b.m.sessionStatus(sid, 'idle');
    await vi.waitFor(() => expect(tx).toHaveBeenCalledTimes(1), { timeout: 5_000 });
    b.m.sessionStatus(sid, 'asking');
    b.m.sessionStatus(sid, 'idle');
    await new Promise<void>((r) => setImmediate(r));
    expect(tx).toHaveBeenCalledTimes(1);
    cluster.start();
    await vi.waitFor(
      () => {
        // A heartbeat (setPublicUrl beats at once; b's timer is an hour): writes what waited.
        b.m.setPublicUrl('http://127.0.0.1:9');
        expect(b.store.presence.get(sid)?.status).toBe('idle');
      },
      { timeout: 20_000, interval: 200 },
    );
    await vi.waitFor(() => expect(statusOf(a.m, sid)).toBe('idle'), { timeout: 20_000 });
  });
});
