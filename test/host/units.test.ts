import { describe, expect, it } from 'vitest';
import { CrashTracker } from '../../src/host/backoff.js';
import { checkHostEvent, HOST_EVENT_NAMES } from '../../src/host/events.js';
import { Gate } from '../../src/host/gate.js';

describe('Gate (per-process concurrency)', () => {
  it('admits up to the limit, then queues FIFO; a queued waiter can give up', async () => {
    const g = new Gate(1);
    const first = await g.acquire();
    const order: string[] = [];
    const positions: number[] = [];
    const b = g.acquire(undefined, (p) => positions.push(p)).then((rel) => (order.push('b'), rel));
    const ac = new AbortController();
    const c = g.acquire(ac.signal, (p) => positions.push(p)).catch(() => order.push('c gave up'));
    const d = g.acquire(undefined, (p) => positions.push(p)).then((rel) => (order.push('d'), rel));
    expect(positions).toEqual([1, 2, 3]);
    ac.abort();
    await c;
    first();
    const relB = await b;
    expect(g.inUse).toBe(1);
    relB();
    relB(); // releasing twice is harmless
    (await d)();
    expect(order).toEqual(['c gave up', 'b', 'd']);
    expect(g.inUse).toBe(0);
    expect(g.queued).toBe(0);
  });

  it('Infinity never queues', async () => {
    const g = new Gate(Number.POSITIVE_INFINITY);
    await Promise.all([g.acquire(), g.acquire(), g.acquire()]);
    expect(g.inUse).toBe(3);
  });
});

describe('CrashTracker (crash-loop backoff)', () => {
  it('free restarts first, then doubling waits up to the max; a stable run or a healthy turn resets', () => {
    let now = 1_000;
    const t = new CrashTracker({ freeRestarts: 2, baseMs: 100, maxMs: 350, stableMs: 10_000 }, () => now);
    expect(t.crash(10, 'x')).toBeUndefined();
    expect(t.crash(10, 'x')).toBeUndefined();
    expect(t.blockedUntil()).toBeUndefined();
    expect(t.crash(10, 'x')).toEqual({ delayMs: 100, retryAt: 1_100 });
    expect(t.blockedUntil()).toBe(1_100);
    expect(t.crash(10, 'x')?.delayMs).toBe(200);
    expect(t.crash(10, 'x')?.delayMs).toBe(350);
    now = 5_000;
    expect(t.blockedUntil()).toBeUndefined();
    expect(t.crash(20_000, 'after a long run')).toBeUndefined();
    expect(t.crashes).toBe(1);
    t.healthy();
    expect(t.crashes).toBe(0);
  });
});

describe('host event registry', () => {
  it('every event has a schema; bad bodies are caught', () => {
    expect(HOST_EVENT_NAMES).toEqual([
      'agent.spawned',
      'agent.exited',
      'agent.crashed',
      'agent.backoff',
      'turn.stalled',
      'turn.waiting',
      'turn.reaped',
      'session.rebound',
      'session.reseeded',
    ]);
    const key = { provider: 'hermes', workspace: '/w' };
    expect(
      checkHostEvent({
        type: 'agent.exited',
        key,
        generation: 1,
        pid: 5,
        reason: 'idle',
        exitCode: 0,
        signal: null,
      } as never),
    ).toBeNull();
    expect(
      checkHostEvent({
        type: 'agent.exited',
        key,
        generation: 1,
        pid: 5,
        reason: 'bored',
        exitCode: 0,
        signal: null,
      } as never),
    ).toMatch(/reason/);
    expect(checkHostEvent({ type: 'agent.nope' })).toBe('unknown host event type agent.nope');
  });
});
