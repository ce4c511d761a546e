import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import harden from '@endo/harden';
import {
  connectCaps,
  Dataspace,
  E,
  Far,
  makeFactObserver,
  type CapsDataspace,
  type CapsLauncher,
  type FactChange,
} from '../../src/caps/index.js';
import { collector, testHost } from './helpers.js';

vi.setConfig({ testTimeout: 60_000 });

/** The set of facts an observer believes in, from its add/del stream. */
function view(changes: readonly FactChange[]): Map<string, Record<string, unknown>> {
  const m = new Map<string, Record<string, unknown>>();
  for (const c of changes) {
    if (c.op === 'add') m.set(c.handle, c.fact as Record<string, unknown>);
    else m.delete(c.handle);
  }
  return m;
}

describe('the presence dataspace over the wire', () => {
  it('session facts: a late observer gets the replay, then each change (status re-asserted as a turn runs)', async () => {
    const t = await testHost();
    const a = await connectCaps<CapsLauncher>(t.url, t.launcher);
    const s1 = await E(a.root).newSession();
    const id1 = (await E(s1).info()).id;
    const d = await connectCaps<CapsDataspace>(t.url, t.host.mintDataspace({ methods: ['observe'] }).uri);
    const seen = collector<FactChange>();
    await E(d.root).observe(
      { type: 'session' },
      makeFactObserver((b) => seen.onBatch(b)),
    );
    await seen.until((xs) => [...view(xs).values()].some((f) => f.id === id1));
    expect([...view(seen.items).values()]).toEqual([
      expect.objectContaining({
        type: 'session',
        id: id1,
        provider: 'demo',
        status: 'idle',
        host: t.host.refs.hostKey,
        cwd: t.p.userHome,
      }),
    ]);
    const s2 = await E(a.root).newSession();
    const id2 = (await E(s2).info()).id;
    await E(E(s2).prompt('hello')).result();
    await seen.until((xs) => xs.some((c) => c.op === 'add' && c.fact.id === id2 && c.fact.status === 'running'));
    await seen.until(() =>
      [...view(seen.items).values()].some((f) => f.id === id2 && f.status === 'idle' && f.title !== ''),
    );
    // One fact per session at any time.
    expect(new Set([...view(seen.items).values()].map((f) => f.id))).toEqual(new Set([id1, id2]));
    expect(view(seen.items).size).toBe(2);
    // This reference may only observe.
    await expect(E(d.root).assert({ type: 'agent', id: 'x' })).rejects.toThrow(/method_denied/);
    await d.close();
    await a.close();
  });

  it('facts carry capabilities; everything a connection asserted is retracted when it closes; quotas per connection', async () => {
    const t = await testHost({ host: { quotas: { maxFacts: 3 } } });
    const ref = t.host.mintDataspace().uri;
    const watcher = await connectCaps<CapsDataspace>(t.url, ref);
    const seen = collector<FactChange>();
    await E(watcher.root).observe(
      { type: 'agent' },
      makeFactObserver((b) => seen.onBatch(b)),
    );
    const b = await connectCaps<CapsDataspace>(t.url, ref);
    const ping = Far('Ping', { ping: () => 'pong from b' });
    await E(b.root).assert({ type: 'agent', id: 'remote-1', provider: 'demo', ready: true, ping });
    await E(b.root).assert({ type: 'agent', id: 'remote-2', provider: 'demo', ready: false });
    await E(b.root).assert({ type: 'note', text: 'not an agent' });
    await expect(E(b.root).assert({ type: 'agent', id: 'one-too-many' })).rejects.toThrow(/quota_exceeded/);
    await seen.until((xs) => view(xs).size === 2);
    const withCap = [...view(seen.items).values()].find((f) => f.id === 'remote-1')!;
    // The capability in the fact works for the observer (through the host).
    expect(await E(withCap.ping as { ping(): string }).ping()).toBe('pong from b');
    // The watcher cannot retract b's facts.
    const handle = seen.items.find((c) => c.fact.id === 'remote-2')!.handle;
    expect(await E(watcher.root).retract(handle)).toBe(false);
    await b.close();
    await seen.until((xs) => view(xs).size === 0);
    expect(new Set(seen.items.filter((c) => c.op === 'del').map((c) => c.fact.id))).toEqual(
      new Set(['remote-1', 'remote-2']),
    );
    await watcher.close();
  });

  it('revoking the dataspace reference cuts a live observation', async () => {
    const t = await testHost();
    const m = t.host.mintDataspace();
    const d = await connectCaps<CapsDataspace>(t.url, m.uri);
    const seen = collector<FactChange>();
    await E(d.root).observe(
      { type: 'agent' },
      makeFactObserver((b) => seen.onBatch(b)),
    );
    t.host.dataspace.assert('host', harden({ type: 'agent', id: 'a1' }));
    await seen.until((xs) => xs.length === 1);
    t.host.refs.revoke(m.id);
    t.host.dataspace.assert('host', harden({ type: 'agent', id: 'a2' }));
    await expect(
      E(d.root).observe(
        { type: 'agent' },
        makeFactObserver(() => {}),
      ),
    ).rejects.toThrow(/ref_revoked/);
    expect(seen.items.map((c) => c.fact.id)).toEqual(['a1']);
    await d.close();
  });
});

describe('the dataspace index', () => {
  it('1,000 random assert/retract steps with 100 observers of different patterns: every observer sees exactly the matching facts', () => {
    let seed = 7;
    const r = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const ds = new Dataspace();
    const types = ['session', 'agent'];
    const patterns = Array.from({ length: 100 }, (_, i): Record<string, string> =>
      i === 0
        ? {}
        : i % 3 === 0
          ? { type: types[i % 2]! }
          : i % 3 === 1
            ? { id: `s${i % 20}` }
            : { type: 'session', status: i % 2 ? 'idle' : 'running' },
    );
    const views = patterns.map(() => new Map<string, Record<string, unknown>>());
    patterns.forEach((p, i) =>
      ds.observe(p, {
        added: (h, f) => views[i]!.set(h, f as Record<string, unknown>),
        removed: (h) => views[i]!.delete(h),
      }),
    );
    const live = new Map<string, { owner: string; fact: Record<string, unknown> }>();
    for (let step = 0; step < 1_000; step++) {
      if (live.size > 0 && r() < 0.45) {
        const hs = [...live.keys()];
        const h = hs[Math.floor(r() * hs.length)]!;
        expect(ds.retract(live.get(h)!.owner, h)).toBe(true);
        live.delete(h);
      } else if (r() < 0.03) {
        const owner = `c${Math.floor(r() * 4)}`;
        ds.retractAll(owner);
        for (const [h, v] of live) if (v.owner === owner) live.delete(h);
      } else {
        const owner = `c${Math.floor(r() * 4)}`;
        const fact = {
          type: types[Math.floor(r() * 2)]!,
          id: `s${Math.floor(r() * 20)}`,
          status: r() < 0.5 ? 'idle' : 'running',
        };
        live.set(ds.assert(owner, fact), { owner, fact });
      }
      patterns.forEach((p, i) => {
        const want = [...live].filter(([, v]) => Object.entries(p).every(([k, x]) => v.fact[k] === x)).map(([h]) => h);
        expect([...views[i]!.keys()].sort()).toEqual(want.sort());
      });
    }
    // A late observer gets the replay.
    const late = new Map<string, unknown>();
    ds.observe({ type: 'agent' }, { added: (h, f) => late.set(h, f), removed: (h) => late.delete(h) });
    expect(late.size).toBe([...live.values()].filter((v) => v.fact.type === 'agent').length);
  });
});
