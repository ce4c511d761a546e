/**
 * Under `talaria serve --caps` the events a caps client gets come from the server's event log,
 * which hears the session before the caps face does: a `permission.asked` must still carry a
 * working responder, and the client's answer must complete the turn.
 */
import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectCaps, E, makeEventSink, type CapsPermission, type CapsSession } from '../../src/caps/index.js';
import { demoSession, serve } from '../server/helpers.js';
import { collector } from './helpers.js';
import { withCaps } from './serve-helpers.js';

vi.setConfig({ testTimeout: 90_000 });

type Ev = {
  type: string;
  seq: number;
  requestKey?: string;
  responder?: unknown;
  options?: { optionId: string; kind: string }[];
};

const askedIn = (xs: Ev[]): Ev | undefined => xs.find((e) => e.type === 'permission.asked');

describe('caps under serve: permissions', () => {
  it('a caps controller answers a permission the demo agent asks, through the responder on the event from the store cursor, and the turn completes', async () => {
    const s = await serve({ permission: 'ask' });
    const caps = withCaps(s);
    const id = await demoSession(s);
    writeFileSync(join(s.p.userHome, 'notes.txt'), 'hello\n');
    const ref = caps.ref(id, 'controller');
    const c = await connectCaps<CapsSession>(caps.url, ref, { token: s.server.token });
    const got = collector<Ev>();
    await E(c.root).subscribe(makeEventSink((b) => got.onBatch(b as Ev[])));
    const mine = collector<Ev>();
    const turn = E(
      E(c.root).prompt(
        'edit notes.txt',
        makeEventSink((b) => mine.onBatch(b as Ev[])),
      ),
    ).result();
    // Both roads (a subscription, the prompt's own sink) carry a responder.
    for (const x of [got, mine]) await x.until((xs) => askedIn(xs) !== undefined);
    expect(askedIn(got.items)!.responder).toBeDefined();
    expect(askedIn(mine.items)!.responder).toBeDefined();
    // So does the ask read back from the event log by a controller that resumes before it.
    const asked = askedIn(got.items)!;
    const late = await connectCaps<CapsSession>(caps.url, ref, { token: s.server.token });
    const replay = collector<Ev>();
    await E(late.root).subscribe(
      makeEventSink((b) => replay.onBatch(b as Ev[])),
      asked.seq - 1,
    );
    await replay.until((xs) => askedIn(xs) !== undefined);
    const again = askedIn(replay.items)!;
    expect(again.seq).toBe(asked.seq);
    expect(again.responder).toBeDefined();
    const allow = again.options!.find((o) => o.kind === 'allow_once') ?? again.options![0]!;
    expect(await E(again.responder as CapsPermission).answer(allow.optionId)).toMatchObject({ ok: true });
    expect((await turn).stopReason).toBe('end_turn');
    await got.until((xs) => xs.some((e) => e.type === 'permission.decided'));
    await late.close();
    await c.close();
    await caps.close();
  });
});
