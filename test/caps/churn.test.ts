/**
 * Dataspace ≡ the merged session list under churn, against real sessions (demo agent over real
 * pipes, the real store): random create / close / archive / unarchive / reopen / model-switch
 * steps — archive and unarchive written straight to the store, as another face would — and at
 * every quiescent point the session facts an observer holds (folded from what it was pushed)
 * equal the list `/api/sessions?archived=include` gives: every stored session, closed and
 * archived ones too, with the state of those open here. Seeded: a failure replays.
 */
import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import {
  CapsHost,
  connectCaps,
  E,
  makeFactObserver,
  type CapsDataspace,
  type CapsLauncher,
  type CapsSession,
  type FactChange,
} from '../../src/caps/index.js';
import { collector, rng, testHost } from './helpers.js';
import { until } from '../until.js';

vi.setConfig({ testTimeout: 300_000 });

/** Steps, each a real agent operation (the figure). */
const STEPS = 1_000;

const key = (f: Record<string, unknown>): string =>
  JSON.stringify(
    Object.keys(f)
      .sort()
      .map((k) => [k, f[k]]),
  );

type Fact = Record<string, unknown>;

/** The merged list as the server builds it (store rows, live state from the sessions open here), as facts. */
function mergedList(t: Awaited<ReturnType<typeof testHost>>): string[] {
  return t.h.sessions
    .list({ includeArchived: true })
    .map((row) => {
      const ls = t.host.live.get(row.id);
      const live = ls && ls.hs.state !== 'closed' ? ls.hs : undefined;
      const f: Fact = {
        type: 'session',
        host: t.host.refs.hostKey,
        id: row.id,
        provider: row.provider,
        status: live ? live.state : row.archived ? 'archived' : 'stored',
        archived: row.archived,
        model: (live ? live.catalog.model?.currentId : row.modelId) ?? '',
        mode: (live ? live.catalog.mode?.currentId : row.modeId) ?? '',
        cwd: row.cwd,
        title: row.title ?? '',
      };
      return key(f);
    })
    .sort();
}

/** The observer's convergence, or a failure that says what differs (not a 300 s test timeout). */
async function converged(p: Promise<void>, what: () => string, limitMs = 30_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`the facts did not converge: ${what()}`)), limitMs)),
  );
  try {
    await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('caps: the dataspace’s session facts equal the sessions, under churn', () => {
  it(`${STEPS} random steps: at every quiescent point observed facts = the merged session list (store ∪ live, closed and archived included)`, async () => {
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
      const m = new Map<string, Fact>();
      for (const x of seen.items) {
        if (x.op === 'add') m.set(x.handle, x.fact as Fact);
        else m.delete(x.handle);
      }
      return [...m.values()].map(key).sort();
    };
    const controllers = new Map<string, CapsSession | Promise<CapsSession>>();
    const counts = { create: 0, close: 0, archive: 0, unarchive: 0, reopen: 0, model: 0 };
    for (let i = 0; i < STEPS; i++) {
      const live = [...controllers.keys()];
      const rows = t.h.sessions.list({ includeArchived: true });
      const closed = rows.filter((x) => !controllers.has(x.id));
      const pickLive = live[Math.floor(r() * live.length)];
      const pickRow = rows[Math.floor(r() * rows.length)];
      const pickClosed = closed[Math.floor(r() * closed.length)];
      const roll = r();
      if (!pickLive || roll < 0.25) {
        const s = await E(c.root).newSession();
        controllers.set((await E(s).info()).id, s);
        counts.create++;
      } else if (roll < 0.4) {
        await t.host.live.get(pickLive)!.hs.close();
        controllers.delete(pickLive);
        counts.close++;
      } else if (roll < 0.52 && pickRow && !pickRow.archived) {
        // Straight to the store (live or not): the fact follows the row, nobody polls.
        t.h.sessions.archive(pickRow.id);
        counts.archive++;
      } else if (roll < 0.6 && pickRow?.archived) {
        t.h.sessions.unarchive(pickRow.id);
        counts.unarchive++;
      } else if (roll < 0.7 && pickClosed) {
        // A stored session opened again (session/load): live once more.
        const ls = await t.host.live.open(pickClosed.id);
        const ref = t.host.refs.mint({ facet: 'controller', target: ls.hs.id }).uri;
        const cc = await connectCaps<CapsSession>(t.url, ref);
        controllers.set(ls.hs.id, cc.root);
        counts.reopen++;
      } else {
        await E(controllers.get(pickLive)!).setModel(r() < 0.5 ? 'demo-fast' : 'demo-thorough');
        counts.model++;
      }
      // Quiescent: the observer converged on exactly the merged list. Both sides are read afresh at each
      // look: a session still settling after the step (its state, its title) moves the list and its fact
      // together, so a list taken once could pin a state that has already moved on.
      const same = () => JSON.stringify(observed()) === JSON.stringify(mergedList(t));
      await converged(
        until(same, { what: `step ${i}'s facts`, ms: 40_000, every: 20 }).then(() => undefined),
        () => {
          const truth = mergedList(t);
          const obs = observed();
          const extra = obs.filter((f) => !truth.includes(f));
          const missing = truth.filter((f) => !obs.includes(f));
          return `step ${i}: observed ${obs.length} facts, the merged list has ${truth.length}; only observed: ${extra.join(' | ')}; only listed: ${missing.join(' | ')}`;
        },
      );
      expect(new Set(t.host.live.all().map((ls) => ls.hs.id))).toEqual(new Set(controllers.keys()));
    }
    expect(Object.values(counts).every((n) => n > 0)).toBe(true);
    // Closed and archived sessions are facts too (not only live ones).
    expect(observed().length).toBe(t.h.sessions.list({ includeArchived: true }).length);
    expect(observed().length).toBeGreaterThan(t.host.live.all().length);
    // A second host started later over the same harness asserts the same list at once (the same live sessions: one registry).
    const later = new CapsHost({ harness: t.h });
    const facts = new Map<string, Fact>();
    later.dataspace.observe(
      { type: 'session' },
      { added: (h, f) => facts.set(h, { ...(f as Fact), host: t.host.refs.hostKey }), removed: (h) => facts.delete(h) },
    );
    expect([...facts.values()].map(key).sort()).toEqual(mergedList(t));
    const liveBefore = t.host.live.all().length;
    await later.close();
    // Closing that host closes none of the sessions the first one still holds.
    expect(t.host.live.all().filter((ls) => ls.hs.state !== 'closed')).toHaveLength(liveBefore);
    await d.close();
    await c.close();
  });
});
