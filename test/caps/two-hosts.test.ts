import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import {
  connectCaps,
  E,
  makeEventSink,
  makeFactObserver,
  type CapsDataspace,
  type CapsLauncher,
  type CapsSession,
  type FactChange,
} from '../../src/caps/index.js';
import { collector, testHost } from './helpers.js';

vi.setConfig({ testTimeout: 90_000 });

type Ev = { type: string; seq: number };

describe('beyond one machine: two hosts on loopback, one client', () => {
  it('the client observes the union of both hosts’ session facts, prompts on both, and a reader from A is handed to a client of B', async () => {
    const [a, b] = await Promise.all([testHost(), testHost()]);
    expect(a.host.refs.hostKey).not.toBe(b.host.refs.hostKey);
    // One client, two connections (one per host), one merged view.
    const facts = collector<FactChange>();
    const obs = makeFactObserver((x) => facts.onBatch(x));
    const da = await connectCaps<CapsDataspace>(a.url, a.host.mintDataspace({ methods: ['observe'] }).uri);
    const db = await connectCaps<CapsDataspace>(b.url, b.host.mintDataspace({ methods: ['observe'] }).uri);
    await E(da.root).observe({ type: 'session' }, obs);
    await E(db.root).observe({ type: 'session' }, obs);
    const la = await connectCaps<CapsLauncher>(a.url, a.launcher);
    const lb = await connectCaps<CapsLauncher>(b.url, b.launcher);
    const [sa, sb] = await Promise.all([E(la.root).newSession(), E(lb.root).newSession()]);
    const [ra, rb] = await Promise.all([E(E(sa).prompt('hello A')).result(), E(E(sb).prompt('hello B')).result()]);
    expect([ra.stopReason, rb.stopReason]).toEqual(['end_turn', 'end_turn']);
    const ida = (await E(sa).info()).id;
    const idb = (await E(sb).info()).id;
    const union = (): Set<string> => {
      const m = new Map<string, Record<string, unknown>>();
      for (const c of facts.items) {
        const k = `${String(c.fact.host)}/${c.handle}`;
        if (c.op === 'add') m.set(k, c.fact as Record<string, unknown>);
        else m.delete(k);
      }
      return new Set([...m.values()].map((f) => `${String(f.host)}:${String(f.id)}`));
    };
    await facts.until(() => union().size === 2);
    expect(union()).toEqual(new Set([`${a.host.refs.hostKey}:${ida}`, `${b.host.refs.hostKey}:${idb}`]));
    // A reader of A's session, handed to a client of B as a URI: it reads A's session directly.
    const readerFromA = await E(sa).share({ facet: 'reader' });
    const clientOfB = await connectCaps<CapsSession>(b.url, b.launcher).then(async (c) => {
      const viaA = await connectCaps<CapsSession>(a.url, readerFromA);
      return { c, viaA };
    });
    const got = collector<Ev>();
    await E(clientOfB.viaA.root).subscribe(makeEventSink((x) => got.onBatch(x as Ev[])));
    await E(E(sa).prompt('second on A')).result();
    await got.until((xs) => xs.some((e) => e.type === 'turn.ended'));
    expect((await E(clientOfB.viaA.root).snapshot()).sessionId).toBe(ida);
    await expect(E(clientOfB.viaA.root).prompt('no')).rejects.toThrow(/method_denied/);
    for (const c of [da, db, la, lb, clientOfB.c, clientOfB.viaA]) await c.close();
  });
});
