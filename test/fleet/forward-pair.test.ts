/**
 * Pairing (docs/fleet.md §3): B mints a peer reference for A only for a request signed with A's
 * host key, naming A and B, fresh, with a nonce not seen before, from a host that is online and
 * not revoked. Only the reference's hash is stored; revoking A revokes every reference B minted for
 * it, the session controllers below them too.
 */
import { describe, expect, it } from 'vitest';
import { RefStore, hashSecret, secretOf } from '../../src/caps/refs.js';
import { hostIdentity } from '../../src/fleet/identity.js';
import { PairService, pairRequest, PAIR_WINDOW_MS } from '../../src/fleet/pair.js';
import { isTalariaError } from '../../src/protocol/errors.js';
import { freshStore, tempHome } from '../store/helpers.js';

function fleet() {
  const store = freshStore();
  let now = 1_000_000;
  const a = hostIdentity(tempHome(), { name: 'box-a' });
  const b = hostIdentity(tempHome(), { name: 'box-b' });
  for (const h of [a, b])
    store.fleetHosts.register({
      id: h.id,
      name: h.name,
      url: undefined,
      publicKey: h.publicKey,
      agents: [],
      load: {},
      startedAt: now,
      heartbeatAt: now,
      leaseUntil: now + 60_000,
    });
  const refs = new RefStore(store, () => now);
  const pair = new PairService({ store, hostId: b.id, refs, now: () => now });
  return { store, a, b, refs, pair, at: () => now, set: (t: number) => (now = t) };
}

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    expect(isTalariaError(e)).toBe(true);
    expect((e as { code: string }).code).toBe('pair_refused');
    return (e as Error).message;
  }
  throw new Error('not refused');
};

describe('pairing', () => {
  it('mints a peer reference for a signed, fresh request; only its hash is stored; it names A', () => {
    const f = fleet();
    const { ref } = f.pair.pair(pairRequest(f.a, f.b.id, f.at()));
    const secret = secretOf(ref);
    const rows = f.store.capsRefs.list();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ facet: 'peer', kind: 'host', hash: hashSecret(secret), label: `fleet:${f.a.id}` });
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(f.pair.peerOf(ref)).toEqual({ hostId: f.a.id, name: 'box-a' });
    expect(f.pair.peerOf('not-a-reference')).toBeUndefined();
    // Asking again (A restarted: its secret is gone) revokes the first one.
    const second = f.pair.pair(pairRequest(f.a, f.b.id, f.at())).ref;
    expect(f.pair.peerOf(ref)).toBeUndefined();
    expect(f.pair.peerOf(second)).toMatchObject({ hostId: f.a.id });
  });

  it('refuses a bad signature, another target, a stale or replayed request, an unknown, offline or revoked host', () => {
    const f = fleet();
    const good = pairRequest(f.a, f.b.id, f.at());
    expect(refusal(() => f.pair.pair({ ...good, signature: pairRequest(f.a, f.b.id, f.at()).signature }))).toMatch(
      /bad signature/,
    );
    expect(refusal(() => f.pair.pair({ ...good, at: good.at + 1 }))).toMatch(/bad signature/);
    // B's own key cannot speak for A.
    expect(refusal(() => f.pair.pair({ ...pairRequest(f.b, f.b.id, f.at()), from: f.a.id }))).toMatch(/bad signature/);
    expect(refusal(() => f.pair.pair(pairRequest(f.a, 'h_someone-else', f.at())))).toMatch(/another host/);
    expect(refusal(() => f.pair.pair(pairRequest(f.a, f.b.id, f.at() - PAIR_WINDOW_MS - 1)))).toMatch(/not fresh/);
    expect(refusal(() => f.pair.pair({ nonsense: true }))).toMatch(/not a pair request/);
    f.pair.pair(good);
    expect(refusal(() => f.pair.pair(good))).toMatch(/replayed/);
    const stranger = hostIdentity(tempHome(), { name: 'box-x' });
    expect(refusal(() => f.pair.pair(pairRequest(stranger, f.b.id, f.at())))).toMatch(/no such host/);
    f.set(f.at() + 61_000);
    expect(refusal(() => f.pair.pair(pairRequest(f.a, f.b.id, f.at())))).toMatch(/not online/);
    f.set(f.at() - 61_000);
    f.store.fleetHosts.revoke(f.a.id, f.at());
    expect(refusal(() => f.pair.pair(pairRequest(f.a, f.b.id, f.at())))).toMatch(/revoked/);
  });

  it('revoking A revokes the references minted for it, with their children, and tells the listeners', () => {
    const f = fleet();
    const { ref } = f.pair.pair(pairRequest(f.a, f.b.id, f.at()));
    const parent = f.refs.idOf(ref)!;
    const child = f.refs.mint({ facet: 'controller', target: 's1', parentId: parent }).row.id;
    const told: string[] = [];
    f.pair.onPeerRevoked((id) => told.push(id));
    expect(f.pair.sweep()).toEqual([]);
    f.store.fleetHosts.revoke(f.a.id, f.at());
    expect(f.pair.sweep()).toEqual([f.a.id]);
    expect(told).toEqual([f.a.id]);
    expect(f.refs.alive(parent)).toBe(false);
    expect(f.refs.alive(child)).toBe(false);
    expect(f.pair.peerOf(ref)).toBeUndefined();
    // Nothing left to revoke: nobody is told twice.
    expect(f.pair.sweep()).toEqual([]);
  });
});
