/**
 * Answering a permission is a method of its own (`answerPermission`): a controller narrowed
 * without it gets `permission.asked` events without a responder and cannot answer or hand one
 * on, while a full controller answers (through the event's responder or by request key).
 */
import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  connectCaps,
  E,
  FACET_METHODS,
  makeEventSink,
  RefStore,
  type CapsLauncher,
  type CapsPermission,
  type CapsSession,
} from '../../src/caps/index.js';
import { openStore } from '../../src/store/index.js';
import { tempDir } from '../harness/helpers.js';
import { collector, testHost } from './helpers.js';

vi.setConfig({ testTimeout: 60_000 });

type Asked = {
  type: 'permission.asked';
  seq: number;
  requestKey: string;
  responder?: unknown;
  options: { optionId: string; kind: string }[];
};
type Ev = { type: string; seq: number; [k: string]: unknown } | Asked;

const askedIn = (xs: Ev[]): Asked | undefined => xs.find((e): e is Asked => e.type === 'permission.asked');
const allowOf = (a: Asked): string => (a.options.find((o) => o.kind === 'allow_once') ?? a.options[0]!).optionId;

/** A session that asks (demo agent, ask mode, notes.txt to edit), shared as a controller with `methods`, subscribed. */
async function sharedController(methods: string[]) {
  const t = await testHost({ harness: { host: { terminateGraceMs: 500, permission: { mode: 'ask' } } } });
  writeFileSync(join(t.p.userHome, 'notes.txt'), 'hello\n');
  const c = await connectCaps<CapsLauncher>(t.url, t.launcher);
  const s = await E(c.root).newSession();
  const ref = await E(s).share({ facet: 'controller', methods });
  const shared = await connectCaps<CapsSession>(t.url, ref);
  const seen = collector<Ev>();
  await E(shared.root).subscribe(makeEventSink((b) => seen.onBatch(b as Ev[])));
  return { t, c, s, ref, shared, seen };
}

describe('caps: answering a permission is its own method', () => {
  it('a controller narrowed to info+subscribe sees the ask without a responder and cannot answer it; the full controller can', async () => {
    const { t, c, s, ref: narrowRef, shared: n, seen } = await sharedController(['info', 'subscribe']);
    const full = collector<Ev>();
    const turn = E(s).prompt(
      'edit notes.txt',
      makeEventSink((b) => full.onBatch(b as Ev[])),
    );
    await seen.until((xs) => askedIn(xs) !== undefined);
    const asked = askedIn(seen.items)!;
    expect(asked.responder).toBeUndefined();
    await expect(
      E(n.root as unknown as { answerPermission(k: string, o: string): unknown }).answerPermission(
        asked.requestKey,
        allowOf(asked),
      ),
    ).rejects.toThrow(/method_denied/);
    // Nor can it be handed a responder below it.
    const narrowId = t.host.refs.idOf(narrowRef)!;
    const target = `${(await E(s).info()).id} ${asked.requestKey}`;
    expect(() => t.host.refs.mint({ facet: 'responder', target, parentId: narrowId })).toThrow(/ref_widening/);
    // Another session's controller cannot answer this session's request.
    const other = await E(c.root).newSession();
    await expect(E(other).answerPermission(asked.requestKey, allowOf(asked))).rejects.toThrow(/not_found/);
    // The full controller's own copy of the event carries a working responder.
    await full.until((xs) => askedIn(xs) !== undefined);
    const mine = askedIn(full.items)!;
    expect(mine.responder).toBeDefined();
    expect(await E(mine.responder as CapsPermission).answer(allowOf(mine))).toMatchObject({ ok: true });
    expect((await E(turn).result()).stopReason).toBe('end_turn');
    await n.close();
    await c.close();
  });

  it('a controller that keeps answerPermission answers by request key; the responders of that request are shut', async () => {
    const { c, s, shared: a, seen } = await sharedController(['subscribe', 'answerPermission']);
    const turn = E(s).prompt('edit notes.txt');
    await seen.until((xs) => askedIn(xs) !== undefined);
    const asked = askedIn(seen.items)!;
    expect(asked.responder).toBeDefined();
    expect(await E(a.root).answerPermission(asked.requestKey, allowOf(asked))).toMatchObject({ ok: true });
    await expect(E(asked.responder as CapsPermission).answer(allowOf(asked))).rejects.toThrow(/ref_revoked|answered/);
    expect((await E(turn).result()).stopReason).toBe('end_turn');
    await a.close();
    await c.close();
  });

  it('stored references: an unnarrowed controller from before keeps answering, a narrowed one does not; a reader shared from a narrowed controller is no wider', () => {
    const home = tempDir('caps-answer');
    const store = openStore({ home });
    const refs = new RefStore(store);
    const old = FACET_METHODS.controller.filter((m) => m !== 'answerPermission');
    const full = refs.mint({ facet: 'controller', target: 's1', methods: old });
    const narrow = refs.mint({ facet: 'controller', target: 's1', methods: ['prompt', 'subscribe'] });
    const reopened = new RefStore(store);
    expect(reopened.get(full.row.id)!.methods).toEqual(FACET_METHODS.controller);
    expect(reopened.get(narrow.row.id)!.methods).toEqual(['prompt', 'subscribe']);
    const sharer = refs.mint({ facet: 'controller', target: 's1', methods: ['info', 'share'] });
    expect(refs.mint({ facet: 'reader', target: 's1', parentId: sharer.row.id }).row.methods).toEqual([
      'info',
      'share',
    ]);
    expect(() => refs.mint({ facet: 'reader', target: 's1', parentId: sharer.row.id, methods: ['subscribe'] })).toThrow(
      /ref_widening/,
    );
    store.close();
  });
});
