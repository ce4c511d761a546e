import { describe, it, expect } from 'vitest';
import { EventBus } from '../../src/session/bus.js';

describe('EventBus.iterate: listeners only while someone reads', () => {
  it('an iterator nobody reads holds no listener and buffers nothing', () => {
    const bus = new EventBus<number>();
    const its = Array.from({ length: 1_000 }, () => bus.iterate());
    for (let i = 0; i < 10_000; i++) bus.emit(i);
    expect(bus.size).toBe(0);
    expect(its).toHaveLength(1_000);
  });

  it('subscribes on the first read: events from then on, in order', async () => {
    const bus = new EventBus<number>();
    const it = bus.iterate();
    bus.emit(1); // before the first read: not seen
    const first = it.next();
    expect(bus.size).toBe(1);
    bus.emit(2);
    bus.emit(3);
    expect(await first).toEqual({ value: 2, done: false });
    expect(await it.next()).toEqual({ value: 3, done: false });
    await it.return!();
    expect(bus.size).toBe(0);
  });

  it('unsubscribes when a for-await loop breaks, when its body throws, and on throw()', async () => {
    const bus = new EventBus<number>();
    const feed = () => setImmediate(() => [1, 2, 3].forEach((n) => bus.emit(n)));
    feed();
    for await (const n of bus.iterate()) if (n === 2) break;
    expect(bus.size).toBe(0);
    feed();
    await expect(
      (async () => {
        for await (const n of bus.iterate()) if (n === 1) throw new Error('consumer failed');
      })(),
    ).rejects.toThrow('consumer failed');
    expect(bus.size).toBe(0);
    const it = bus.iterate();
    const pending = it.next();
    expect(bus.size).toBe(1);
    await expect(it.throw!(new Error('stop'))).rejects.toThrow('stop');
    expect(bus.size).toBe(0);
    expect(await pending).toEqual({ value: undefined, done: true });
  });

  it('ends (and unsubscribes) when `until` settles or the signal aborts', async () => {
    const bus = new EventBus<number>();
    let end!: () => void;
    const until = new Promise<void>((r) => (end = r));
    const it = bus.iterate({ until });
    const got: number[] = [];
    const reading = (async () => {
      for await (const n of it) got.push(n);
    })();
    await new Promise((r) => setImmediate(r));
    bus.emit(1);
    end();
    bus.emit(2); // same tick as `until` settling: still delivered
    await reading;
    expect(got).toEqual([1, 2]);
    expect(bus.size).toBe(0);
    const ac = new AbortController();
    const aborted = bus.iterate({ signal: ac.signal });
    const next = aborted.next();
    ac.abort();
    expect(await next).toEqual({ value: undefined, done: true });
    expect(bus.size).toBe(0);
  });
});
