import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  connectCaps,
  E,
  Far,
  makeFactObserver,
  type CapsDataspace,
  type CapsLauncher,
  type ExportCount,
} from '../../src/caps/index.js';
import { testHost } from './helpers.js';

vi.setConfig({ testTimeout: 180_000 });

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const CALLS = 3_000;
/** What one endpoint may still hold after its peer dropped everything: the bootstrap and a few in flight. */
const RETAINED_MAX = 50;

/**
 * Collects until `count` shows at most RETAINED_MAX exports alive. Releasing takes several turns:
 * the peer's collector finalizes its imports, sends CTP_DROPs, and only then can this side's
 * answers and exports go. Gives up (and reports the count) after `rounds` collections.
 */
async function retained(count: () => ExportCount, rounds = 200): Promise<number> {
  let alive = Infinity;
  for (let i = 0; i < rounds && alive > RETAINED_MAX; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const c = count();
    alive = c.made - c.collected;
  }
  return alive;
}

describe('caps: memory stays flat (what is exported is collected once the peer drops it)', () => {
  it(`${CALLS} calls that each return a fresh remote object: the host retains none of them afterwards`, async () => {
    const t = await testHost();
    const c = await connectCaps<CapsLauncher>(t.url, t.launcher);
    await c.root;
    const again = t.host.mintLauncher(t.p.userHome).uri;
    for (let i = 0; i < CALLS; i += 250)
      await Promise.all(Array.from({ length: 250 }, () => E(c.bootstrap).fetch(again)));
    const conn = t.host.connectionList()[0]!;
    expect(conn.stats().exports.made).toBeGreaterThanOrEqual(CALLS);
    // Before the fix each call's answer kept its object (and everything it closes over) alive for good.
    expect(await retained(() => conn.stats().exports)).toBeLessThanOrEqual(RETAINED_MAX);
    expect(conn.stats().gc.DROPPED).toBeGreaterThanOrEqual(CALLS);
    await c.close();
  });

  it(`${CALLS} pushes to a client's observer that answers each batch with an object: the client retains none of them afterwards`, async () => {
    const t = await testHost({ host: { quotas: { maxFacts: 1_000_000, assertsPerSecond: 1e9 } } });
    const d = await connectCaps<CapsDataspace>(t.url, t.host.mintDataspace().uri);
    let got = 0;
    let wake: () => void = () => {};
    await E(d.root).observe(
      { type: 'tick' },
      makeFactObserver((b) => {
        got += b.length;
        wake();
        return Far('Ack', { ok: () => true });
      }),
    );
    // One fact at a time, each awaited: one host → client call per fact.
    for (let i = 0; i < CALLS; i++) {
      const seen = new Promise<void>((r) => (wake = r));
      t.host.dataspace.assert('host', { type: 'tick', i });
      await seen;
    }
    expect(got).toBe(CALLS);
    expect(d.exports().made).toBeGreaterThanOrEqual(CALLS);
    expect(await retained(() => d.exports())).toBeLessThanOrEqual(RETAINED_MAX);
    await d.close();
  });
});
