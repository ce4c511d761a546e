import { describe, it, expect } from 'vitest';
import {
  BATCH_BYTES,
  BATCH_MS,
  EventBatcher,
  asciiJson,
  eventsFrame,
  type EventBatch,
} from '../../src/server/batch.js';
import { serverMessage, type StreamEvent } from '../../src/server/contract/index.js';

const ev = (seq: number, text = 'x'): StreamEvent =>
  ({ sessionId: 's', seq, at: 1, type: 'entry.appended', index: 0, text }) as StreamEvent;
const turn = () => new Promise<void>((r) => setImmediate(r));
const seqs = (b: EventBatch) => b.jsons.map((j) => (JSON.parse(j) as StreamEvent).seq);

/** A batcher on a clock that only moves when the test says so. */
function batcher(): { q: EventBatcher; clock: { t: number } } {
  const clock = { t: 0 };
  return { q: new EventBatcher(() => clock.t), clock };
}

describe('EventBatcher', () => {
  it("one event-loop turn's events reach every subscriber as one batch, serialized once", async () => {
    const { q } = batcher();
    const a: EventBatch[] = [];
    const b: EventBatch[] = [];
    q.subscribe('s', (x) => a.push(x));
    q.subscribe('s', (x) => b.push(x));
    for (let i = 1; i <= 100; i++) q.add(ev(i));
    expect(a).toHaveLength(0);
    await turn();
    expect(a).toHaveLength(1);
    expect(seqs(a[0]!)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // The same batch, the same bytes: built once for both.
    expect(b[0]).toBe(a[0]);
    expect(a[0]!.frame()).toBe(b[0]!.frame());
    const m = serverMessage.parse(JSON.parse(a[0]!.frame().toString()));
    expect(m.type === 'events' && m.events.map((e) => e.seq)).toEqual(seqs(a[0]!));
    expect(a[0]!.bytes).toBe(a[0]!.jsons.reduce((n, j) => n + Buffer.byteLength(j), 0));
  });

  it('a subscriber that joins mid-turn gets only later events; what was pending goes to the earlier ones first', async () => {
    const { q } = batcher();
    const early: number[] = [];
    const late: number[] = [];
    q.subscribe('s', (x) => early.push(...seqs(x)));
    q.add(ev(1));
    q.add(ev(2));
    q.subscribe('s', (x) => late.push(...seqs(x)));
    expect(early).toEqual([1, 2]);
    q.add(ev(3));
    await turn();
    expect(early).toEqual([1, 2, 3]);
    expect(late).toEqual([3]);
  });

  it('a batch goes at once when it reaches BATCH_BYTES (a backlog read in one turn does not hold clients back)', () => {
    const { q } = batcher();
    const got: EventBatch[] = [];
    q.subscribe('s', (x) => got.push(x));
    const big = 'y'.repeat(BATCH_BYTES / 4);
    for (let i = 1; i <= 4; i++) q.add(ev(i, big));
    expect(got).toHaveLength(1);
    expect(seqs(got[0]!)).toEqual([1, 2, 3, 4]);
  });

  it('a batch goes at once when its first event waited BATCH_MS (a long turn does not hold clients back)', () => {
    const { q, clock } = batcher();
    const got: EventBatch[] = [];
    q.subscribe('s', (x) => got.push(x));
    q.add(ev(1));
    clock.t += BATCH_MS / 2;
    q.add(ev(2));
    expect(got).toHaveLength(0);
    clock.t += BATCH_MS / 2;
    q.add(ev(3));
    expect(got.map(seqs)).toEqual([[1, 2, 3]]);
  });

  it("a task's batch goes as the task ends, before setImmediates it queued earlier (the store's commits: clients do not wait for them)", async () => {
    const { q } = batcher();
    const order: string[] = [];
    q.subscribe('s', (x) => order.push(`batch ${seqs(x).join(',')}`));
    // As on the server: a frame's recorder commit is queued before its event is emitted.
    setImmediate(() => order.push('commit'));
    q.add(ev(1));
    q.add(ev(2));
    expect(order).toEqual([]);
    await turn();
    expect(order).toEqual(['batch 1,2', 'commit']);
  });

  it('nothing is kept for a session nobody listens to, nor after the last one left', async () => {
    const { q } = batcher();
    const got: number[] = [];
    q.add(ev(1));
    const off = q.subscribe('s', (x) => got.push(...seqs(x)));
    q.add(ev(2));
    off();
    q.add(ev(3));
    await turn();
    expect(got).toEqual([]);
  });
});

describe('asciiJson', () => {
  it('escapes every non-ASCII character, so the frame is ASCII and parses to the same value', () => {
    const v = { text: 'fix bug — ok ✓ 😀 é', lone: '\ud800' };
    const j = asciiJson(v);
    expect(/^[\x20-\x7e]*$/.test(j)).toBe(true);
    expect(JSON.parse(j)).toEqual(v);
    expect(asciiJson({ a: 'plain' })).toBe(JSON.stringify({ a: 'plain' }));
    // latin1 of ASCII is its UTF-8.
    expect(eventsFrame('s', [j]).toString('utf8')).toBe(`{"type":"events","sessionId":"s","events":[${j}]}`);
  });
});
