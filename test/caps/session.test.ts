import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectCaps, E, makeEventSink, type CapsLauncher, type CapsSession } from '../../src/caps/index.js';
import { collector, testHost } from './helpers.js';

vi.setConfig({ testTimeout: 60_000 });

type Ev = { type: string; seq: number; turnId?: string; [k: string]: unknown };

describe.concurrent('caps: sessions as capabilities over a WebSocket', () => {
  it('a pipelined chain (newSession → prompt → result) runs in one round trip; events reach the sink, in order, before the result', async () => {
    const t = await testHost();
    // Calls sent before the first answer arrived.
    let calls = 0;
    let answered = false;
    let callsBeforeAnswer = -1;
    const c = await connectCaps<CapsLauncher>(t.url, t.launcher, {
      tap: (dir, m) => {
        if (dir === 'out' && m.type === 'CTP_CALL') calls++;
        if (dir === 'in' && m.type === 'CTP_RETURN' && !answered) {
          answered = true;
          callsBeforeAnswer = calls;
        }
      },
    });
    await c.root;
    calls = 0;
    answered = false;
    const sink = collector<Ev>();
    const turn = E(E(c.root).newSession()).prompt(
      'hello there',
      makeEventSink((b) => sink.onBatch(b as Ev[])),
    );
    const result = E(turn).result();
    const r = await result;
    // Three calls went out before any answer came back: the chain was pipelined.
    expect(callsBeforeAnswer).toBe(3);
    expect(r.stopReason).toBe('end_turn');
    const types = sink.items.map((e) => e.type);
    expect(types).toContain('turn.started');
    expect(types.at(-1)).toBe('turn.ended');
    expect(sink.items.at(-1)!.turnId).toBe(r.turnId);
    const seqs = sink.items.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    await c.close();
  });

  it('interface guards refuse bad arguments at the boundary; nothing reaches the session', async () => {
    const t = await testHost();
    const c = await connectCaps<CapsLauncher>(t.url, t.launcher);
    const s = await E(c.root).newSession();
    const id = (await E(s).info()).id;
    await expect(E(s as unknown as { prompt(x: number): unknown }).prompt(42)).rejects.toThrow(/Must (be|match)/);
    await expect(E(s as unknown as { setModel(x: object): unknown }).setModel({})).rejects.toThrow(/Must/);
    await expect(E(s as unknown as { nope(): unknown }).nope()).rejects.toThrow(/nope/);
    await expect(E(c.root).newSession({ cwd: '/' } as never)).rejects.toThrow(/cwd|Must/);
    expect(t.h.store.turns.list(id)).toEqual([]);
    await c.close();
  });

  it('cancel: the turn the prompt hands back stops it', async () => {
    const t = await testHost({ vars: { TALARIA_DEMO_CHUNK_DELAY_MS: '40' } });
    const c = await connectCaps<CapsLauncher>(t.url, t.launcher);
    const s = await E(c.root).newSession();
    const sink = collector<Ev>();
    const turn = E(s).prompt(
      'slow',
      makeEventSink((b) => sink.onBatch(b as Ev[])),
    );
    await sink.until((xs) => xs.some((e) => e.type === 'entry.added' || e.type === 'entry.updated'));
    await E(turn).cancel();
    const r = await E(turn).result();
    expect(r.stopReason).toBe('cancelled');
    await c.close();
  });

  it('a reader resumes after the last seq it saw: no gap, no duplicate; a reader cannot prompt', async () => {
    const t = await testHost();
    const c = await connectCaps<CapsLauncher>(t.url, t.launcher);
    const s = await E(c.root).newSession();
    await E(E(s).prompt('first')).result();
    const readerRef = await E(s).share({ facet: 'reader' });
    const c2 = await connectCaps<CapsSession>(t.url, readerRef);
    const got = collector<Ev>();
    const sub = await E(c2.root).subscribe(makeEventSink((b) => got.onBatch(b as Ev[])));
    const turn2 = E(s).prompt('second');
    await E(turn2).result();
    await got.until((xs) => xs.some((e) => e.type === 'turn.ended'));
    const cut = got.items.findIndex((e) => e.type === 'turn.ended');
    const lastSeen = got.items[cut]!.seq;
    await E(sub).cancel();
    await c2.close();
    await E(E(s).prompt('third')).result();
    // Reconnect with the same reference and resume after the cursor.
    const c3 = await connectCaps<CapsSession>(t.url, readerRef);
    const again = collector<Ev>();
    await E(c3.root).subscribe(
      makeEventSink((b) => again.onBatch(b as Ev[])),
      lastSeen,
    );
    await again.until((xs) => xs.some((e) => e.type === 'turn.ended'));
    const seqs = again.items.map((e) => e.seq);
    expect(seqs[0]).toBe(lastSeen + 1);
    expect(seqs).toEqual(seqs.map((_, i) => lastSeen + 1 + i));
    await expect(E(c3.root).prompt('no')).rejects.toThrow(/method_denied/);
    await expect(E(c3.root).share({ facet: 'controller' })).rejects.toThrow(/ref_widening/);
    await c3.close();
    await c.close();
  });

  it('permissions: each request is a one-shot responder; the first answer wins; it can be handed on by reference', async () => {
    const t = await testHost({ harness: { host: { terminateGraceMs: 500, permission: { mode: 'ask' } } } });
    writeFileSync(join(t.p.userHome, 'notes.txt'), 'hello\n');
    const c = await connectCaps<CapsLauncher>(t.url, t.launcher);
    const s = await E(c.root).newSession();
    const sink = collector<Ev>();
    const turn = E(s).prompt(
      'edit notes.txt',
      makeEventSink((b) => sink.onBatch(b as Ev[])),
    );
    await sink.until((xs) => xs.some((e) => e.type === 'permission.asked'));
    const asked = sink.items.find((e) => e.type === 'permission.asked')! as Ev & {
      responder: unknown;
      options: { optionId: string; kind: string }[];
    };
    // Handed to "a phone": a reference to this request only, redeemed on another connection.
    const phoneRef = await E(asked.responder as import('../../src/caps/index.js').CapsPermission).share({
      expiresIn: 60_000,
    });
    const phone = await connectCaps<import('../../src/caps/index.js').CapsPermission>(t.url, phoneRef);
    const details = await E(phone.root).details();
    expect(details.requestKey).toBe(asked.requestKey);
    const allow = details.options.find((o) => o.kind === 'allow_once') ?? details.options[0]!;
    expect(await E(phone.root).answer(allow.optionId)).toMatchObject({ ok: true });
    // Second answer (from the original holder): refused, the request is decided.
    await expect(
      E(asked.responder as import('../../src/caps/index.js').CapsPermission).answer(allow.optionId),
    ).rejects.toThrow(/ref_revoked|answered/);
    expect((await E(turn).result()).stopReason).toBe('end_turn');
    await phone.close();
    await c.close();
  });

  it('load: redeeming a session reference after the live session closed reopens the stored session', async () => {
    const t = await testHost();
    const c = await connectCaps<CapsLauncher>(t.url, t.launcher);
    const s = await E(c.root).newSession();
    await E(E(s).prompt('remember me')).result();
    const ref = await E(s).share({ facet: 'controller' });
    const id = (await E(s).info()).id;
    await c.close();
    await t.host.live.close();
    expect(t.host.live.get(id)).toBeUndefined();
    const c2 = await connectCaps<CapsSession>(t.url, ref);
    const snap = await E(c2.root).snapshot();
    expect(snap.sessionId).toBe(id);
    expect(JSON.stringify(snap.entries)).toContain('remember me');
    expect((await E(E(c2.root).prompt('again')).result()).stopReason).toBe('end_turn');
    await c2.close();
  });
});
