/**
 * Ownership across machines (docs/fleet.md §3): a fleet host's writer lease names the host; another
 * fleet host's lease holds while that host is online (its lease running, not revoked) and is
 * refused at once with session_owned_elsewhere; once it is offline or revoked, it is taken over.
 */
import { describe, expect, it } from 'vitest';
import { hostOnline } from '../../src/fleet/view.js';
import { SessionLocks } from '../../src/harness/session-locks.js';
import { isTalariaError } from '../../src/protocol/errors.js';
import type { Store } from '../../src/store/index.js';
import { freshStore } from '../store/helpers.js';

const row = (id: string, leaseUntil: number) => ({
  id,
  name: `box-${id}`,
  url: undefined,
  publicKey: `key-${id}`,
  agents: [],
  load: {},
  startedAt: 0,
  heartbeatAt: 0,
  leaseUntil,
});

function member(store: Store, hostId: string, now: () => number): SessionLocks {
  const locks = new SessionLocks(store, { waitMs: 5_000 });
  locks.joinFleet({
    hostId,
    host: (id) => {
      const h = store.fleetHosts.get(id);
      return h && { name: h.name, online: hostOnline(h, now()) };
    },
  });
  return locks;
}

describe('the writer lease of a fleet host', () => {
  it('names the host; another live host’s lease is refused at once, an offline or revoked one’s is taken over', async () => {
    const store = freshStore();
    let now = 1_000;
    const clock = () => now;
    store.fleetHosts.register(row('h_a', 60_000));
    store.fleetHosts.register(row('h_b', 60_000));
    store.sessions.create({ id: 's1', provider: 'demo', cwd: '/w' });
    const b = member(store, 'h_b', clock);
    const a = member(store, 'h_a', clock);
    await b.acquire('s1');
    // B's pid is this test's: only the fleet row decides, never a pid on "this machine".
    expect(store.leases.get('s1')).toMatchObject({ host: 'h_b', pid: process.pid });
    const started = Date.now();
    const err = await a.acquire('s1').catch((e: unknown) => e);
    expect(isTalariaError(err, 'session_owned_elsewhere')).toBe(true);
    expect((err as Error).message).toContain('live on host box-h_b');
    expect((err as { details: unknown }).details).toMatchObject({ host: 'h_b', hostName: 'box-h_b' });
    // Refused at once, not after the 5 s wait for a local holder.
    expect(Date.now() - started).toBeLessThan(1_000);

    // B's lease runs out: A takes the session over.
    now = 61_000;
    await a.acquire('s1');
    expect(store.leases.get('s1')).toMatchObject({ host: 'h_a' });

    // A is revoked (its lease still running): B takes it back.
    now = 2_000;
    store.fleetHosts.revoke('h_a', now);
    b.release('s1');
    await b.acquire('s1');
    expect(store.leases.get('s1')).toMatchObject({ host: 'h_b' });
    store.close();
  });

  it('a holder on the same fleet host is checked by its pid', async () => {
    const store = freshStore();
    store.fleetHosts.register(row('h_a', Date.now() + 60_000));
    store.sessions.create({ id: 's2', provider: 'demo', cwd: '/w' });
    // A process of this host that is gone (pid 2^22 - 1 is never a live pid here) holds nothing.
    store.leases.acquire('s2', { owner: 'dead', pid: 4_194_303, host: 'h_a' }, () => true);
    const a = member(store, 'h_a', Date.now);
    await a.acquire('s2');
    expect(store.leases.get('s2')).toMatchObject({ host: 'h_a', pid: process.pid });
    store.close();
  });
});
