/**
 * Under `talaria serve` the caps readers' cursor is the store's `session_events` seq: the number
 * `/ws` clients see for the same event, resumed from the event log (no gap, no duplicate), and a
 * cursor from before a server restart gets a snapshot, never events of another numbering.
 */
import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import { connectCaps, E, makeEventSink, type CapsSession } from '../../src/caps/index.js';
import { RESTART_GAP } from '../../src/server/event-log.js';
import { demoSession, place, serve, watching, type Served } from '../server/helpers.js';
import { collector, eventually } from './helpers.js';
import { withCaps } from './serve-helpers.js';
import { rawDb } from '../../src/store/sqlite.js';

vi.setConfig({ testTimeout: 90_000 });

type Ev = { type: string; seq: number; turnId?: string; [k: string]: unknown };

/** The store's rows for a session after `since`, as [seq, type]. */
function stored(s: Served, id: string, since: number): [number, string][] {
  const rows = rawDb(s.harness.store)
    .prepare('SELECT seq, type FROM session_events WHERE session_id = ? AND seq > ? ORDER BY seq')
    .all(id, since) as { seq: number; type: string }[];
  return rows.map((r) => [r.seq, r.type]);
}

const turnEnded = (xs: Ev[], after = 0) => xs.find((e) => e.type === 'turn.ended' && e.seq > after);

describe('caps under serve: the store seq is the resume cursor', () => {
  it('a caps reader and a /ws client on one session see the same seq for the same event', async () => {
    const s = await serve({ permission: 'auto' });
    const caps = withCaps(s);
    const id = await demoSession(s);
    const ws = await watching(s.server, id);
    const c = await connectCaps<CapsSession>(caps.url, caps.ref(id, 'controller'), { token: s.server.token });
    const got = collector<Ev>();
    await E(c.root).subscribe(makeEventSink((b) => got.onBatch(b as Ev[])));
    await E(E(c.root).prompt('hello')).result();
    await got.until((xs) => turnEnded(xs) !== undefined);
    const end = turnEnded(got.items)!;
    await ws.wait((m) => m.type === 'event' && m.event.sessionId === id && m.event.seq === end.seq);
    const bySeq = new Map(ws.events(id).map((e) => [e.seq, e.type]));
    expect(got.items.length).toBeGreaterThan(2);
    for (const e of got.items) expect([e.seq, bySeq.get(e.seq)]).toEqual([e.seq, e.type]);
    expect(bySeq.get(end.seq)).toBe('turn.ended');
    ws.close();
    await c.close();
    await caps.close();
  });

  it('a reader that disconnects mid-stream and resumes with its last seq gets exactly what it missed (checked against the store)', async () => {
    const s = await serve({ permission: 'auto' });
    const caps = withCaps(s);
    const id = await demoSession(s);
    const ctl = await connectCaps<CapsSession>(caps.url, caps.ref(id, 'controller'), { token: s.server.token });
    const readerRef = caps.ref(id, 'reader');
    const c1 = await connectCaps<CapsSession>(caps.url, readerRef, { token: s.server.token });
    const first = collector<Ev>();
    await E(c1.root).subscribe(makeEventSink((b) => first.onBatch(b as Ev[])));
    const turn = E(E(ctl.root).prompt('slow')).result();
    // Mid-stream: the turn has produced something, and goes on after this reader leaves.
    await first.until((xs) =>
      xs.some((e) => e.type === 'entry.added' || e.type === 'entry.updated' || e.type === 'entry.appended'),
    );
    await c1.close();
    const lastSeen = first.items[first.items.length - 1]!.seq;
    await turn;
    const c2 = await connectCaps<CapsSession>(caps.url, readerRef, { token: s.server.token });
    const again = collector<Ev>();
    await E(c2.root).subscribe(
      makeEventSink((b) => again.onBatch(b as Ev[])),
      lastSeen,
    );
    await E(E(ctl.root).prompt('hello')).result();
    await again.until((xs) => xs.filter((e) => e.type === 'turn.ended').length >= 2);
    const lastEnd = again.items.filter((e) => e.type === 'turn.ended')[1]!;
    await eventually(() => stored(s, id, lastEnd.seq - 1).length > 0, 'the store to commit the turn');
    const want = stored(s, id, lastSeen).filter(([seq]) => seq <= lastEnd.seq);
    expect(again.items.filter((e) => e.seq <= lastEnd.seq).map((e) => [e.seq, e.type])).toEqual(want);
    expect(again.items[0]!.type).not.toBe('thread.snapshot');
    await c2.close();
    await ctl.close();
    await caps.close();
  });

  it('across a server restart on the same home, an old cursor gets a snapshot at the store seq, not events of another numbering', async () => {
    const p = place();
    const s1 = await serve({ p, permission: 'auto' });
    const caps1 = withCaps(s1);
    const id = await demoSession(s1);
    const readerRef = caps1.ref(id, 'reader');
    const ctlRef = caps1.ref(id, 'controller');
    const ctl1 = await connectCaps<CapsSession>(caps1.url, ctlRef, { token: s1.server.token });
    const got = collector<Ev>();
    const c1 = await connectCaps<CapsSession>(caps1.url, readerRef, { token: s1.server.token });
    await E(c1.root).subscribe(makeEventSink((b) => got.onBatch(b as Ev[])));
    await E(E(ctl1.root).prompt('hello')).result();
    await got.until((xs) => turnEnded(xs) !== undefined);
    const oldCursor = got.items[got.items.length - 1]!.seq;
    await c1.close();
    await ctl1.close();
    await caps1.close();
    await s1.server.close();

    const s2 = await serve({ p, permission: 'auto' });
    const caps2 = withCaps(s2);
    const c2 = await connectCaps<CapsSession>(caps2.url, readerRef, { token: s2.server.token });
    const after = collector<Ev>();
    await E(c2.root).subscribe(
      makeEventSink((b) => after.onBatch(b as Ev[])),
      oldCursor,
    );
    const ctl2 = await connectCaps<CapsSession>(caps2.url, ctlRef, { token: s2.server.token });
    await E(E(ctl2.root).prompt('hello')).result();
    await after.until((xs) => xs.some((e) => e.type === 'turn.ended'));
    const snap = after.items[0]!;
    expect(snap.type).toBe('thread.snapshot');
    // The snapshot is at the store's numbering of this process (past the restart gap), and what follows continues it.
    expect(snap.seq).toBeGreaterThan(oldCursor + RESTART_GAP);
    const live = after.items.slice(1).filter((e) => e.seq <= turnEnded(after.items)!.seq);
    await eventually(() => stored(s2, id, turnEnded(after.items)!.seq - 1).length > 0, 'the store to commit the turn');
    expect(live.map((e) => [e.seq, e.type])).toEqual(
      stored(s2, id, snap.seq).filter(([seq]) => seq <= turnEnded(after.items)!.seq),
    );
    await c2.close();
    await ctl2.close();
    await caps2.close();
  });
});
