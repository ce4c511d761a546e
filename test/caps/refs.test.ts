import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { connectCaps, E, makeEventSink, RefStore, type CapsLauncher, type CapsSession } from '../../src/caps/index.js';
import { hashSecret, secretOf } from '../../src/caps/refs.js';
import { openStore } from '../../src/store/index.js';
import { collector, testHost } from './helpers.js';
import { tempDir } from '../harness/helpers.js';
import { rawDb } from '../../src/store/sqlite.js';

vi.setConfig({ testTimeout: 60_000 });

type Ev = { type: string; seq: number; [k: string]: unknown };

describe('persistent references: hashed secrets, narrowing, revocation', () => {
  it('only the SHA-256 of the secret is stored; URIs are ocapn-style; a forged, expired or revoked secret is refused with a reason', () => {
    const home = tempDir('refs');
    const store = openStore({ home });
    let now = 1_000;
    const refs = new RefStore(store, () => now);
    const m = refs.mint({ facet: 'reader', target: 's1', expiresAt: 5_000 });
    expect(m.uri).toMatch(new RegExp(`^ocapn://${refs.hostKey}\\.talaria/s/[A-Za-z0-9_-]{43}$`));
    expect(secretOf(m.uri)).toBe(m.secret);
    expect(refs.redeem(m.uri).id).toBe(m.row.id);
    store.close();
    const bytes =
      readFileSync(store.path).toString('latin1') +
      readFileSync(`${store.path}-wal`, { flag: 'a+' }).toString('latin1');
    expect(bytes).not.toContain(m.secret);
    const again = openStore({ home });
    const refs2 = new RefStore(again, () => now);
    expect(refs2.hostKey).toBe(refs.hostKey);
    expect((rawDb(again).prepare('SELECT hash FROM caps_refs').get() as { hash: string }).hash).toBe(
      hashSecret(m.secret),
    );
    // Forged: a well-formed secret nobody minted; a flipped character of a real one.
    expect(() => refs2.redeem('A'.repeat(43))).toThrow(/ref_unknown/);
    expect(() => refs2.redeem(m.secret.slice(0, -1) + (m.secret.endsWith('A') ? 'B' : 'A'))).toThrow(/ref_unknown/);
    now = 5_000;
    expect(() => refs2.redeem(m.secret)).toThrow(/ref_expired/);
    now = 1_000;
    refs2.revoke(m.row.id);
    expect(() => refs2.redeem(m.secret)).toThrow(/ref_revoked/);
    again.close();
  });

  it('a child only narrows its parent; revoking a parent revokes every descendant (and tells live listeners)', () => {
    const store = openStore({ home: tempDir('refs') });
    const refs = new RefStore(store);
    const root = refs.mint({ facet: 'controller', target: 's1', expiresAt: Date.now() + 60_000 });
    const reader = refs.mint({
      facet: 'reader',
      target: 's1',
      parentId: root.row.id,
      expiresAt: Date.now() + 3_600_000,
    });
    expect(reader.row.expiresAt).toBe(root.row.expiresAt); // clamped to the parent's
    const narrow = refs.mint({
      facet: 'controller',
      target: 's1',
      parentId: root.row.id,
      methods: ['info', 'subscribe'],
    });
    expect(() =>
      refs.mint({ facet: 'controller', target: 's1', parentId: narrow.row.id, methods: ['prompt'] }),
    ).toThrow(/ref_widening/);
    expect(() => refs.mint({ facet: 'controller', target: 's1', parentId: reader.row.id })).toThrow(/ref_widening/);
    const grandchild = refs.mint({ facet: 'reader', target: 's1', parentId: reader.row.id });
    const seen: string[] = [];
    refs.onRevoke((ids) => seen.push(...ids));
    const revoked = refs.revoke(root.row.id);
    expect(new Set(revoked)).toEqual(new Set([root.row.id, reader.row.id, narrow.row.id, grandchild.row.id]));
    expect(new Set(seen)).toEqual(new Set(revoked));
    for (const m of [root, reader, narrow, grandchild]) expect(() => refs.redeem(m.secret)).toThrow(/ref_revoked/);
    store.close();
  });
});

describe('handoff and revocation over the wire', () => {
  it('A hands a controller to B without its own secret; B prompts; revoking B stops B mid-stream and not A', async () => {
    const t = await testHost({ vars: { TALARIA_DEMO_CHUNK_DELAY_MS: '30' } });
    const a = await connectCaps<CapsLauncher>(t.url, t.launcher);
    const sa = await E(a.root).newSession();
    const bRef = await E(sa).share({ facet: 'controller', expiresIn: 600_000 });
    const b = await connectCaps<CapsSession>(t.url, bRef);
    // B never sees A's reference: its URI is its own, and A's session ref was never rendered at all.
    expect(bRef).not.toContain(secretOf(t.launcher));
    const bEvents = collector<Ev>();
    const aEvents = collector<Ev>();
    await E(sa).subscribe(makeEventSink((x) => aEvents.onBatch(x as Ev[])));
    const turn = E(b.root).prompt(
      'slow',
      makeEventSink((x) => bEvents.onBatch(x as Ev[])),
    );
    await bEvents.until((xs) => xs.filter((e) => e.type === 'entry.updated' || e.type === 'entry.added').length >= 3);
    t.host.refs.revoke(t.host.refs.idOf(bRef)!);
    await expect(E(turn).result()).rejects.toThrow(/ref_revoked/);
    const frozenAt = bEvents.items.length;
    await expect(E(b.root).info()).rejects.toThrow(/ref_revoked/);
    // A still drives and reads the session: the turn B started runs to its end for A.
    await aEvents.until((xs) => xs.some((e) => e.type === 'turn.ended'));
    expect((await E(E(sa).prompt('hello')).result()).stopReason).toBe('end_turn');
    expect(bEvents.items.length).toBe(frozenAt);
    // The revoked reference cannot be redeemed again.
    await expect(connectCaps(t.url, bRef).then((c) => c.root)).rejects.toThrow(/ref_revoked/);
    await a.close();
    await b.close();
  });

  it('forged, expired and revoked references are refused at fetch', async () => {
    let now = Date.now();
    const t = await testHost({ host: { now: () => now } });
    const forged = `ocapn://${t.host.refs.hostKey}.talaria/s/${'x'.repeat(43)}`;
    await expect(connectCaps(t.url, forged).then((c) => c.root)).rejects.toThrow(/ref_unknown/);
    await expect(connectCaps(t.url, 'y'.repeat(10_000)).then((c) => c.root)).rejects.toThrow(/ref_unknown/);
    const short = t.host.mintLauncher(t.p.userHome, { provider: 'demo', expiresAt: now + 1_000 });
    const c = await connectCaps<CapsLauncher>(t.url, short.uri);
    expect(await E(c.root).info()).toMatchObject({ provider: 'demo' });
    now += 1_000;
    // The live object expires with its reference, and so does a new fetch.
    await expect(E(c.root).info()).rejects.toThrow(/ref_expired/);
    await expect(c.fetch(short.uri)).rejects.toThrow(/ref_expired/);
    const other = t.host.mintLauncher(t.p.userHome);
    t.host.refs.revoke(other.id);
    await expect(c.fetch(other.uri)).rejects.toThrow(/ref_revoked/);
    await c.close();
  });
});
