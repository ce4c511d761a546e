/**
 * The server's event log through a store outage: another process holds the SQLite write lock past
 * the store's busy timeout (test/harness/lock-holder-child.ts). What the store refuses for now is
 * kept in order and retried, `after` answers from it meanwhile, nothing is reported as an error,
 * and everything is on disk with contiguous seqs once the lock goes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventLog } from '../../src/server/event-log.js';
import { openStore } from '../../src/store/index.js';
import { tempHome } from '../store/helpers.js';
import { killLockHolders, lockHolder } from '../harness/lock-holder.js';

vi.setConfig({ testTimeout: 60_000 });
afterEach(killLockHolders);

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('event log: a busy store loses nothing', () => {
  it('keeps refused events, answers `after` from them, and commits them once the store is back', async () => {
    const home = tempHome('event-log-busy');
    const store = openStore({ home, busyTimeoutMs: 20 });
    const other = openStore({ home });
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const errors: unknown[] = [];
    const log = new EventLog(store, { onError: (e) => errors.push(e) });
    for (let i = 0; i < 3; i++) log.append('s', 'attention', { kind: 'turn.ended', text: `before ${i}` });
    log.flush();
    expect(other.events.after('s', 0, 100).map((r) => r.seq)).toEqual([1, 2, 3]);

    const lock = await lockHolder(store.path);
    for (let i = 0; i < 5; i++) log.append('s', 'attention', { kind: 'turn.ended', text: `during ${i}` });
    await tick();
    expect(log.waiting).toBe(5);
    log.append('s', 'recording.caught_up', { frames: 1, outageMs: 1 });
    // Answered from the store plus what waits: in order, no hole.
    expect(log.after('s', 2)!.map((e) => e.seq)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    log.prune('s');
    expect(errors).toEqual([]);

    await lock.release();
    await vi.waitFor(() => expect(log.waiting).toBe(0), { timeout: 10_000, interval: 10 });
    const rows = other.events.after('s', 0, 100);
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(rows.at(-1)!.type).toBe('recording.caught_up');
    expect(errors).toEqual([]);
    log.close();
    store.close();
    other.close();
  });

  it('past its bound drops what waits, says so once, and answers a resume from before the drop with a snapshot', async () => {
    const home = tempHome('event-log-busy-bound');
    const store = openStore({ home, busyTimeoutMs: 20 });
    const other = openStore({ home });
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const errors: Error[] = [];
    const log = new EventLog(store, { onError: (e) => errors.push(e as Error), hold: { maxCount: 3 } });
    log.append('s', 'attention', { kind: 'turn.ended', text: 'before' });
    log.flush();

    const lock = await lockHolder(store.path);
    for (let i = 0; i < 2; i++) log.append('s', 'attention', { kind: 'turn.ended', text: `during ${i}` });
    log.flush();
    expect(log.waiting).toBe(2);
    expect(errors).toEqual([]);
    for (let i = 2; i < 4; i++) log.append('s', 'attention', { kind: 'turn.ended', text: `during ${i}` });
    log.flush();
    expect(log.waiting).toBe(0);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'recording_failed', details: { events: 4, batches: 2 } });
    expect(errors[0]!.message).toMatch(/event log gave up: 4 events .* more than 3 events held/);
    // Seqs 2–5 are gone: a resume from before them cannot be answered exactly.
    expect(log.after('s', 1)).toBeUndefined();

    await lock.release();
    log.append('s', 'attention', { kind: 'turn.ended', text: 'after' });
    log.flush();
    expect(other.events.after('s', 0, 100).map((r) => r.seq)).toEqual([1, 6]);
    expect(log.after('s', 6)).toEqual([]);
    expect(errors).toHaveLength(1);
    log.close();
    store.close();
    other.close();
  });
});
