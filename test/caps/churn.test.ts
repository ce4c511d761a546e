/**
 * Dataspace ≡ sessions under churn, against real sessions (demo agent over real pipes, the real
 * store): random create / close / archive / model-switch steps through the host, and at every
 * quiescent point the session facts an observer holds (folded from what it was pushed) equal the
 * host's live sessions, fact by fact, and agree with the store's rows (provider, model, cwd,
 * title; none archived). Seeded: a failure replays.
 */
import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import { connectCaps, E, makeFactObserver, type CapsDataspace, type CapsLauncher, type CapsSession, type FactChange } from '../../src/caps/index.js';
import { sessionFact } from '../../src/caps/session-facts.js';
import { collector, rng, testHost } from './helpers.js';

vi.setConfig({ testTimeout: 300_000 });

/** Steps, each a real agent operation (the figure). */
const STEPS = 1_000;

const key = (f: Record<string, unknown>): string =>
  JSON.stringify(
    Object.keys(f)
      .sort()
      .map((k) => [k, f[k]]),
  );

describe('caps: the dataspace’s session facts equal the sessions, under churn', () => {
  it(`${STEPS} random create / close / archive / model-switch steps: at every quiescent point observed facts = live sessions = store rows`, async () => {
    const t = await testHost();
    const r = rng(12);
    const c = await connectCaps<CapsLauncher>(t.url, t.launcher);
    const d = await connectCaps<CapsDataspace>(t.url, t.host.mintDataspace({ methods: ['observe'] }).uri);
    const seen = collector<FactChange>();
    await E(d.root).observe(
      { type: 'session' },
      makeFactObserver((b) => seen.onBatch(b)),
    );
    const observed = (): string[] => {
      const m = new Map<string, Record<string, unknown>>();
      for (const x of seen.items) {
        if (x.op === 'add') m.set(x.handle, x.fact as Record<string, unknown>);
        else m.delete(x.handle);
      }
      return [...m.values()].map(key).sort();
    };
    const controllers = new Map<string, CapsSession>();
    const counts = { create: 0, close: 0, archive: 0, model: 0 };
    for (let i = 0; i < STEPS; i++) {
      const ids = [...controllers.keys()];
      const pick = ids[Math.floor(r() * ids.length)];
      const roll = r();
      if (!pick || roll < 0.35) {
        const s = await E(c.root).newSession();
        controllers.set((await E(s).info()).id, s);
        counts.create++;
      } else if (roll < 0.55) {
        await t.host.live.get(pick)!.hs.close();
        controllers.delete(pick);
        counts.close++;
      } else if (roll < 0.7) {
        // Archived: out of the list, and closed here (an archived session is not offered live).
        t.h.sessions.archive(pick);
        await t.host.live.get(pick)!.hs.close();
        controllers.delete(pick);
        counts.archive++;
      } else {
        await E(controllers.get(pick)!).setModel(r() < 0.5 ? 'demo-fast' : 'demo-thorough');
        counts.model++;
      }
      // Quiescent: what the host holds as true, and the observer converged on exactly it.
      const truth = t.host.live
        .all()
        .map((ls) => key(sessionFact(t.host.refs.hostKey, ls)))
        .sort();
      await seen.until(() => JSON.stringify(observed()) === JSON.stringify(truth));
      expect(new Set(t.host.live.all().map((ls) => ls.hs.id))).toEqual(new Set(controllers.keys()));
      for (const f of observed().map((k) => Object.fromEntries(JSON.parse(k) as [string, unknown][]))) {
        const row = t.h.store.sessions.get(String(f.id))!;
        expect(row.archived).toBe(false);
        // The store keeps the model chosen for the session (none until a switch): when there is one, it is the fact's.
        expect({ provider: f.provider, model: f.model, cwd: f.cwd, title: f.title }).toEqual({
          provider: row.provider,
          model: row.modelId ?? f.model,
          cwd: row.cwd,
          title: row.title ?? '',
        });
      }
    }
    expect(Object.values(counts).every((n) => n > 0)).toBe(true);
    await d.close();
    await c.close();
  });
});
