/**
 * A child reference never outlives its parent: an invalid expiry (NaN, ±Infinity, ≤ 0, not a
 * number) is refused, a child of an expiring parent always expires, never after it — whatever
 * the parent's expiry and the requested one — and a parent's expiry or revocation cuts it.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { RefStore } from '../../src/caps/refs.js';
import { openStore, type Store } from '../../src/store/index.js';
import { tempDir } from '../harness/helpers.js';
import { rawDb } from '../../src/store/sqlite.js';

const T0 = 1_000_000;

function fresh(): { refs: RefStore; store: Store; at: (t: number) => void; close: () => void } {
  const store = openStore({ home: tempDir('caps-expiry') });
  let now = T0;
  return { refs: new RefStore(store, () => now), store, at: (t) => (now = t), close: () => store.close() };
}

const validIn = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

/** What a caller may ask for: sensible durations, and everything a peer or a CLI could send. */
const requested = fc.oneof(
  fc.integer({ min: 1, max: 10 * 86_400_000 }),
  fc.constantFrom(NaN, Infinity, -Infinity, 0, -0, -1, Number.MAX_VALUE, Number.MIN_VALUE, -Number.MAX_VALUE),
  fc.double(),
  fc.anything(),
);

describe('caps references: a child never outlives its parent', () => {
  it('property: for any parent expiry and any requested child expiresIn, an invalid one is refused and a valid child expires no later than its parent', () => {
    const { refs, at, close } = fresh();
    try {
      fc.assert(
        fc.property(
          fc.option(fc.integer({ min: 1, max: 10 * 86_400_000 }), { nil: undefined }),
          requested,
          fc.boolean(),
          (parentTtl, expiresIn, viaReader) => {
            at(T0);
            const parent = refs.mint({
              facet: 'controller',
              target: 's1',
              ...(parentTtl !== undefined ? { expiresAt: T0 + parentTtl } : {}),
            });
            // Not asking (undefined) is allowed: the child then expires with its parent, if ever.
            const mint = () =>
              refs.mint({
                facet: viaReader ? 'reader' : 'controller',
                target: 's1',
                parentId: parent.row.id,
                expiresIn: expiresIn as number,
              });
            if (expiresIn !== undefined && !validIn(expiresIn)) {
              expect(mint).toThrow(/invalid_argument: expiresIn/);
              return;
            }
            const child = mint();
            const exp = child.row.expiresAt;
            const want = Math.min(
              expiresIn === undefined ? Infinity : T0 + expiresIn,
              parent.row.expiresAt ?? Infinity,
            );
            expect(exp).toBe(Number.isFinite(want) ? want : undefined);
            if (parent.row.expiresAt !== undefined) expect(exp).toBeLessThanOrEqual(parent.row.expiresAt);
            expect(refs.list().find((r) => r.id === child.row.id)!.expiresAt).toBe(exp);
            if (parent.row.expiresAt !== undefined) {
              at(parent.row.expiresAt);
              expect(refs.alive(child.row.id)).toBe(false);
              expect(() => refs.redeem(child.secret)).toThrow(/ref_expired/);
            }
          },
        ),
        { numRuns: 300 },
      );
    } finally {
      close();
    }
  });

  it('property: an absolute expiresAt that is not a finite time in the future is refused, with a parent or without', () => {
    const { refs, close } = fresh();
    try {
      const parent = refs.mint({ facet: 'controller', target: 's1', expiresAt: T0 + 5_000 });
      fc.assert(
        fc.property(
          fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, T0, T0 - 1), fc.anything()),
          fc.boolean(),
          (expiresAt, child) => {
            // undefined: no expiry of its own, which is allowed.
            fc.pre(
              expiresAt !== undefined &&
                !(typeof expiresAt === 'number' && Number.isFinite(expiresAt) && expiresAt > T0),
            );
            expect(() =>
              refs.mint({
                facet: 'reader',
                target: 's1',
                expiresAt: expiresAt as number,
                ...(child ? { parentId: parent.row.id } : {}),
              }),
            ).toThrow(/invalid_argument: expiresAt/);
          },
        ),
        { numRuns: 300 },
      );
    } finally {
      close();
    }
  });

  it('a child stored without an expiry below an expiring parent (minted before this was enforced) dies with its parent, and is listed with the parent’s expiry', () => {
    const { refs, store, at, close } = fresh();
    const parent = refs.mint({ facet: 'controller', target: 's1', expiresAt: T0 + 5_000 });
    const child = refs.mint({ facet: 'reader', target: 's1' });
    const grandchild = refs.mint({ facet: 'reader', target: 's1' });
    // What the old code stored for share({expiresIn: NaN}): a NULL expiry under an expiring parent.
    const db = rawDb(store);
    db.prepare('UPDATE caps_refs SET parent_id = ? WHERE id = ?').run(parent.row.id, child.row.id);
    db.prepare('UPDATE caps_refs SET parent_id = ? WHERE id = ?').run(child.row.id, grandchild.row.id);
    expect(refs.redeem(grandchild.secret).expiresAt).toBe(T0 + 5_000);
    expect(refs.list().find((r) => r.id === grandchild.row.id)!.expiresAt).toBe(T0 + 5_000);
    expect(refs.alive(grandchild.row.id)).toBe(true);
    at(T0 + 5_000);
    expect(refs.alive(grandchild.row.id)).toBe(false);
    expect(() => refs.redeem(child.secret)).toThrow(/ref_expired/);
    expect(() => refs.redeem(grandchild.secret)).toThrow(/ref_expired/);
    close();
  });
});
