/**
 * Joining a fleet (docs/fleet.md §5) on a real PostgreSQL: the first host of an empty fleet joins
 * freely, every other needs a join token (none, a wrong one and an expired one are refused with
 * what to do); a token serves several hosts until it expires; a member restarts without one; a
 * revoked host leaves at once, the others see it at once, and it rejoins only with a token made
 * since; only the token's SHA-256 is stored; plain HTTP off loopback is refused.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  checkFleetUrl,
  FleetError,
  hostIdentity,
  mintJoinToken,
  revokeHost,
  startFleetMember,
  type FleetMember,
  type HostIdentity,
} from '../../src/fleet/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { openSyncPg } from '../../src/store/pg/sync-client.js';
import { startCluster, type Cluster } from '../store/pg/cluster.js';

vi.setConfig({ testTimeout: 30_000 });

let cluster: Cluster;
let url: string;
const stores: Store[] = [];
const members: FleetMember[] = [];
beforeAll(() => {
  cluster = startCluster();
  const admin = openSyncPg(cluster.url);
  admin.query('CREATE DATABASE joins');
  admin.close();
  url = cluster.url.replace('/postgres?', '/joins?');
});
afterAll(async () => {
  try {
    for (const m of members) await m.stop();
    for (const s of stores) s.close();
  } finally {
    cluster?.destroy();
  }
});

const store = (): Store => {
  const s = openStore({ url });
  stores.push(s);
  return s;
};
const identity = (name: string): HostIdentity =>
  hostIdentity(mkdtempSync(join(tmpdir(), `talaria-join-${name}-`)), { name });

/** A member with a lease far longer than the test: only a revocation makes it offline. */
function join_(id: HostIdentity, token?: string, onRevoked?: (e: FleetError) => void): FleetMember {
  const m = startFleetMember({
    store: store(),
    storeUrl: url,
    identity: id,
    heartbeatMs: 100,
    leaseMs: 600_000,
    ...(token ? { joinToken: token } : {}),
    ...(onRevoked ? { onRevoked } : {}),
  });
  members.push(m);
  return m;
}

const refused = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(FleetError);
    expect((err as FleetError).fix).toMatch(/talaria fleet token/);
    return (err as FleetError).code;
  }
  throw new Error('joined, but should have been refused');
};

describe('joining a fleet', () => {
  const a = identity('box-a');
  const b = identity('box-b');
  const c = identity('box-c');
  let admin: Store;
  let memberA: FleetMember;
  let memberB: FleetMember;
  let token: string;

  it('the first host of an empty fleet joins without a token; the next one needs one', () => {
    admin = store();
    memberA = join_(a);
    expect(admin.fleetHosts.get(a.id)?.name).toBe('box-a');
    expect(refused(() => join_(b))).toBe('join_token_required');
    expect(admin.fleetHosts.get(b.id)).toBeUndefined();
  });

  it('a wrong token and an expired one are refused', () => {
    expect(refused(() => join_(b, 'tfj_not-a-token-of-this-fleet'))).toBe('join_token_invalid');
    const old = mintJoinToken(admin, { ttlMs: 1_000, now: Date.now() - 60_000 });
    expect(refused(() => join_(b, old.token))).toBe('join_token_expired');
    expect(admin.fleetHosts.get(b.id)).toBeUndefined();
  });

  it('a valid token admits several hosts until it expires; only its SHA-256 is stored', () => {
    const t = mintJoinToken(admin, { ttlMs: 3_600_000, label: 'team boxes' });
    token = t.token;
    memberB = join_(b, token);
    join_(c, token);
    expect(admin.fleetHosts.get(b.id)?.revokedAt).toBeUndefined();
    expect(admin.fleetHosts.get(c.id)?.name).toBe('box-c');
    const row = admin.fleetTokens.list().find((x) => x.id === t.id)!;
    expect(row).toMatchObject({ uses: 2, label: 'team boxes' });
    expect(row.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    const raw = openSyncPg(url);
    try {
      const dump = JSON.stringify(raw.query('SELECT * FROM fleet_join_tokens').rows);
      expect(dump).not.toContain(token);
      expect(dump).not.toContain(token.slice(4, 20));
    } finally {
      raw.close();
    }
  });

  it('a member restarts without a token', async () => {
    await memberB.stop();
    memberB = join_(b);
    await memberB.ready;
    await vi.waitFor(() => expect(memberA.hosts().find((h) => h.id === b.id)?.online).toBe(true));
  });

  it('revoked: it leaves at once, the others see it at once, and it rejoins only with a token made since', async () => {
    await memberA.ready;
    let left: FleetError | undefined;
    await memberB.stop();
    memberB = join_(b, undefined, (e) => (left = e));
    await memberB.ready;
    expect(revokeHost(admin, b.id, Date.now())).toBe(true);
    expect(revokeHost(admin, b.id, Date.now())).toBe(false);
    // The notification, not the 10-minute lease.
    await vi.waitFor(() => expect(left?.code).toBe('host_revoked'), { timeout: 5_000 });
    await vi.waitFor(
      () => expect(memberA.hosts().find((h) => h.id === b.id)).toMatchObject({ online: false, revoked: true }),
      {
        timeout: 5_000,
      },
    );
    // It left: its heartbeat no longer renews the lease (while A's beats on, every 100 ms).
    const beat = admin.fleetHosts.get(b.id)!.heartbeatAt;
    const aBeat = admin.fleetHosts.get(a.id)!.heartbeatAt;
    await vi.waitFor(() => expect(admin.fleetHosts.get(a.id)!.heartbeatAt).toBeGreaterThan(aBeat + 300));
    expect(admin.fleetHosts.get(b.id)!.heartbeatAt).toBe(beat);

    expect(refused(() => join_(b))).toBe('host_revoked');
    // The team's token predates the revocation: it does not undo it.
    expect(refused(() => join_(b, token))).toBe('host_revoked');
    const fresh = mintJoinToken(admin, { ttlMs: 60_000 });
    const back = join_(b, fresh.token);
    await back.ready;
    expect(admin.fleetHosts.get(b.id)?.revokedAt).toBeUndefined();
    await vi.waitFor(() =>
      expect(memberA.hosts().find((h) => h.id === b.id)).toMatchObject({ online: true, revoked: false }),
    );
  });

  it('plain HTTP off loopback is refused; TLS or loopback are not', () => {
    for (const u of [
      'http://10.0.0.5:8080',
      'http://box-b.example:7777/',
      'http://0.0.0.0:8080',
      'http://[::]:8080',
      'nonsense',
    ])
      expect(() => checkFleetUrl(u), u).toThrow(expect.objectContaining({ code: 'insecure_url' }));
    for (const u of ['https://box-b.example:7777', 'http://127.0.0.1:7777', 'http://localhost:1', 'http://[::1]:9'])
      expect(() => checkFleetUrl(u), u).not.toThrow();
    expect(() => join_(identity('box-d'), mintJoinToken(admin, { ttlMs: 60_000 }).token, undefined)).not.toThrow();
    expect(() =>
      startFleetMember({
        store: admin,
        storeUrl: url,
        identity: identity('box-e'),
        publicUrl: 'http://192.168.1.9:7777',
      }),
    ).toThrow(expect.objectContaining({ code: 'insecure_url' }));
  });
});
