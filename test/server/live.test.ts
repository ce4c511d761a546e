import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect, vi } from 'vitest';
import { applyEvent } from '../../src/server/client/thread.js';
import type { SessionSnapshot, StreamEvent } from '../../src/server/contract/index.js';
import { Probe, contiguous, demoSession, isEvent, serve, snapOf, type Seen } from './helpers.js';

vi.setConfig({ testTimeout: 300_000 });

const FLOOD = { TALARIA_DEMO_SLOW_CHUNKS: '10000', TALARIA_DEMO_SLOW_DELAY_MS: '0' };

/** The flood's chunks seen so far in a stream (the chunks of one read come folded in one event). */
function chunksIn(events: readonly StreamEvent[]): number {
  let n = 0;
  for (const e of events) {
    const text =
      e.type === 'entry.appended'
        ? (e as { text: string }).text
        : e.type === 'entry.added'
          ? ((e as { entry: { text?: string } }).entry.text ?? '')
          : '';
    n += text.match(/Chunk \d+ of 10000/g)?.length ?? 0;
  }
  return n;
}

describe.concurrent('/ws: ordered, resumable, shared', () => {
  it("a socket killed in the middle of a 10,000-chunk turn resumes with `since`: no gap, no duplicate, the thread equals the store's", async () => {
    const s = await serve({ vars: FLOOD });
    const id = await demoSession(s);
    const a = new Probe(s.server);
    await a.wait((m) => m.type === 'welcome');
    a.send({ type: 'subscribe', sessionId: id });
    await a.wait((m) => m.type === 'synced');
    const base = snapOf(a.messages.find((m) => m.type === 'snapshot'))!;
    await s.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    await a.wait(() => chunksIn(a.events(id)) >= 500);
    // The server falls behind the agent for a moment (its event loop held, as under load): the
    // chunks that piled up in the pipe are read in one task, and go out as one message. How many
    // events share a message otherwise depends on the machine's speed, not on the server.
    const until = performance.now() + 100;
    while (performance.now() < until) {
      // hold the event loop
    }
    // Cut it hard (no close handshake) once the stream is well under way.
    await a.wait(() => chunksIn(a.events(id)) >= 1500);
    a.ws.terminate();
    const got = a.events(id);
    // Batched: one message per turn of the server's event loop, not one per chunk (nor per event).
    const sizes = a.frames.flatMap((m) => (m.type === 'events' ? [chunksIn(m.events)] : []));
    expect(Math.max(...sizes)).toBeGreaterThan(10);
    const last = got.at(-1)!.seq;
    const b = new Probe(s.server);
    await b.wait((m) => m.type === 'welcome');
    b.send({ type: 'subscribe', sessionId: id, since: last });
    await b.wait(isEvent(id, 'turn.ended'));
    expect(b.messages.some((m) => m.type === 'snapshot')).toBe(false);
    const all = [...got, ...b.events(id)];
    contiguous(all, base.seq + 1);
    for (const e of all) applyEvent(base, e);
    const h = s.harness;
    s.server.hub.get(id)!.hs.flush();
    expect(JSON.parse(JSON.stringify(base.thread.entries))).toEqual(
      JSON.parse(JSON.stringify(h.store.entries.list(id))),
    );
    const answer = base.thread.entries.find((e) => (e as { kind: string }).kind === 'assistant_message') as {
      text: string;
    };
    const chunks = answer.text.match(/Chunk \d+ of 10000/g)!;
    expect(chunks).toHaveLength(10000);
    // The stream is compact: appends, not the whole answer per chunk (nor per read): the answer's
    // text went out about once.
    expect(all.filter((e) => e.type === 'entry.appended').length).toBeGreaterThan(10);
    const sent = all.reduce((n, e) => n + (e.type === 'entry.appended' ? (e as { text: string }).text.length : 0), 0);
    expect(sent).toBeLessThanOrEqual(answer.text.length);
    expect(sent).toBeGreaterThan(answer.text.length * 0.9);
    b.close();
  });

  it('`since` older than the log keeps → a snapshot at M, then exactly the events after M', async () => {
    const s = await serve({ retainEvents: 8 }); // fewer than the two turns make (a read's text chunks fold into one event)
    const id = await demoSession(s);
    // Subscribed before the prompt: a turn that ends before a late subscribe would never be seen.
    const p = new Probe(s.server);
    await p.wait((m) => m.type === 'welcome');
    p.send({ type: 'subscribe', sessionId: id });
    await p.wait((m) => m.type === 'synced');
    await s.client.api.prompt({ params: { id }, body: { text: 'hello' } });
    await p.wait(isEvent(id, 'turn.ended'));
    const seq = p.events(id).at(-1)!.seq;
    await s.client.api.prompt({ params: { id }, body: { text: 'plan' } });
    await p.next(isEvent(id, 'turn.ended'));
    const q = new Probe(s.server);
    await q.wait((m) => m.type === 'welcome');
    q.send({ type: 'subscribe', sessionId: id, since: 1 });
    const snap = snapOf(await q.wait((m) => m.type === 'snapshot'))!;
    const synced = await q.wait<Extract<Seen, { type: 'synced' }>>((m) => m.type === 'synced');
    expect(synced.seq).toBe(snap.seq);
    expect(snap.seq).toBeGreaterThan(seq);
    // A since the log still has: events, no snapshot.
    const r = new Probe(s.server);
    await r.wait((m) => m.type === 'welcome');
    r.send({ type: 'subscribe', sessionId: id, since: snap.seq - 3 });
    await r.wait((m) => m.type === 'synced');
    expect(r.messages.some((m) => m.type === 'snapshot')).toBe(false);
    contiguous(r.events(id), snap.seq - 2);
    for (const x of [p, q, r]) x.close();
  });
  it("the typed client's LiveSocket unfolds the batches: each event once, in seq order, and the folded thread equals the store's", async () => {
    const s = await serve({ vars: { TALARIA_DEMO_SLOW_CHUNKS: '2000', TALARIA_DEMO_SLOW_DELAY_MS: '0' } });
    const id = await demoSession(s);
    const live = s.client.socket();
    let snap: SessionSnapshot | undefined;
    const seen: StreamEvent[] = [];
    let ended!: () => void;
    let synced!: () => void;
    const done = new Promise<void>((r) => (ended = r));
    const caughtUp = new Promise<void>((r) => (synced = r));
    live.subscribe(id, {
      onSynced: () => synced(),
      onSnapshot: (x) => (snap = JSON.parse(JSON.stringify(x)) as SessionSnapshot),
      onEvent: (e) => {
        seen.push(e);
        if (e.type === 'turn.ended') ended();
      },
    });
    await caughtUp;
    await s.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    await done;
    contiguous(seen, snap!.seq + 1);
    for (const e of seen) applyEvent(snap!, e);
    s.server.hub.get(id)!.hs.flush();
    expect(JSON.parse(JSON.stringify(snap!.thread.entries))).toEqual(
      JSON.parse(JSON.stringify(s.harness.store.entries.list(id))),
    );
    live.close();
  });

  it('a slow client is told to resync while a fast client on the same session keeps up', async () => {
    // Each `read` turn carries one ~3 MB event; four of them are more than a paused client's TCP
    // buffers hold, so its server-side buffer passes the 3.5 MB bound, while a reading client's never does.
    // A paused client reads nothing: under load the four turns outlast its heartbeat allowance and the
    // server rightly drops it as dead (4002). This test is about the buffer bound, so heartbeats are
    // set beyond its length (live-slow.test.ts has a paused-then-slow reader on real heartbeats).
    const s = await serve({
      vars: { TALARIA_DEMO_MAX_READ_BYTES: '20000000' },
      maxBufferedBytes: 3.5 * 1024 * 1024,
      heartbeatMs: 600_000,
    });
    writeFileSync(join(s.p.userHome, 'big.txt'), 'lorem ipsum dolor sit amet\n'.repeat(110_000));
    const id = await demoSession(s);
    const fast = new Probe(s.server);
    const slow = new Probe(s.server);
    for (const x of [fast, slow]) {
      await x.wait((m) => m.type === 'welcome');
      x.send({ type: 'subscribe', sessionId: id });
      await x.wait((m) => m.type === 'synced');
    }
    const base = snapOf(fast.messages.find((m) => m.type === 'snapshot'))!;
    const sock = (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    sock.pause();
    for (let i = 0; i < 4; i++) await s.client.api.prompt({ params: { id }, body: { text: 'read big.txt' } });
    await fast.wait((m) => m.type === 'event' && m.event.type === 'queue.updated' && m.event.queue.length === 0);
    await fast.wait((m) => fast.events(id).filter((e) => e.type === 'turn.ended').length === 4 && m.type === 'event');
    expect(fast.messages.some((m) => m.type === 'resync')).toBe(false);
    contiguous(fast.events(id), base.seq + 1);
    sock.resume();
    const resync = await slow.wait((m) => m.type === 'resync');
    expect(resync).toMatchObject({ sessionId: id, reason: 'overflow' });
    const had = slow.events(id);
    contiguous(had, base.seq + 1);
    expect(had.length).toBeLessThan(fast.events(id).length);
    // Caught up to the log's head at `synced` (the fast client may still get events after it, so its count is no target).
    slow.send({ type: 'subscribe', sessionId: id, since: had.at(-1)!.seq });
    const synced = await slow.next<Extract<Seen, { type: 'synced' }>>((m) => m.type === 'synced' && m.sessionId === id);
    await fast.wait(() => (fast.events(id).at(-1)?.seq ?? 0) >= synced.seq);
    contiguous(slow.events(id), base.seq + 1);
    expect(slow.events(id).map((e) => e.seq)).toEqual(
      fast.events(id).flatMap((e) => (e.seq <= synced.seq ? [e.seq] : [])),
    );
    fast.close();
    slow.close();
  });
});
