/**
 * The recorder through a store outage (issue 39): another process holds the SQLite write lock
 * past the recorder's busy timeout (lock-holder-child.ts), as a restarting PostgreSQL would refuse
 * commits. What fails for now is held, in order, and retried: nothing lost, seqs contiguous, the
 * delay and the catch-up reported; past the hold's bounds the loss is reported with its count; a
 * permanent error still drops at once; a turn's end, flush and close return within their bound.
 */
import { describe, it, expect, vi, afterEach } from 'vitest';
import type { Frame } from '../../src/protocol/types.js';
import type { SessionEvent } from '../../src/session/events.js';
import { openStore, StoreError, type Store } from '../../src/store/index.js';
import { createRecorder, type RecorderOptions, type RecordingDelayEvent } from '../../src/harness/recorder.js';
import { tempHome } from '../store/helpers.js';
import { killLockHolders, lockHolder } from './lock-holder.js';

vi.setConfig({ testTimeout: 60_000 });

const msgOf = (i: number) => ({ jsonrpc: '2.0', method: 'session/update', params: { n: i } });
const frame = (i: number): Frame => ({ t_ms: i, dir: 'agent->client', msg: msgOf(i), raw: JSON.stringify(msgOf(i)) });
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
let evSeq = 0;
const ev = (type: SessionEvent['type'], body: Record<string, unknown>): SessionEvent =>
  ({ type, sessionId: 'agent-1', seq: ++evSeq, at: 1000 + evSeq, ...body }) as unknown as SessionEvent;
const tick = () => new Promise<void>((r) => setImmediate(r));
/** How long a turn's end or a flush may take during the outage: one retry at a 20 ms busy timeout, with room for a loaded machine. */
const BOUND_MS = 1_000;

afterEach(killLockHolders);

/** A recorder whose store waits 20 ms for a lock, and a second connection that sees only committed rows. */
async function setup(opts: Partial<RecorderOptions> = {}, wrap: (s: Store) => Store = (s) => s) {
  const home = tempHome('rec-outage');
  const store = openStore({ home, busyTimeoutMs: 20 });
  const other = openStore({ home });
  store.sessions.create({ id: 's', provider: 'p', cwd: '/', agentSessionId: 'agent-1' });
  const errors: Error[] = [];
  const delays: RecordingDelayEvent[] = [];
  const rec = createRecorder(wrap(store), {
    sessionKey: 's',
    thread: false,
    onError: (e) => errors.push(e),
    onDelay: (e) => delays.push(e),
    ...opts,
  });
  if (opts.thread) await vi.waitFor(() => expect(rec.threaded).toBe(true), { timeout: 15_000, interval: 10 });
  const seqs = () => other.wire.rows('s').map((r) => r.seq);
  const msgs = () => other.wire.rows('s').map((r) => r.msg);
  const delayed = () => delays.filter((d) => d.type === 'recording.delayed');
  const caughtUp = () => delays.filter((d) => d.type === 'recording.caught_up');
  return {
    store,
    other,
    rec,
    errors,
    delays,
    delayed,
    caughtUp,
    seqs,
    msgs,
    done: () => (store.close(), other.close()),
  };
}

type T = Awaited<ReturnType<typeof setup>>;

/** Frames `a`…`b`, `per` to an event-loop tick (each tick's commit is one batch). */
async function stream(t: T, a: number, b: number, per = 8) {
  for (let i = a; i <= b; i++) {
    t.rec.onFrame(frame(i));
    if ((i - a + 1) % per === 0) await tick();
  }
  await tick();
}

/** Runs `fn` and says how long it took (ms). */
function timed(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

describe('recorder through a store outage', () => {
  it('inline: frames wait out a held lock and all land in order; the delay and the catch-up are reported once each', async () => {
    const t = await setup({ commitGapMs: 0 });
    await stream(t, 1, 5);
    t.rec.flush();
    const lock = await lockHolder(t.store.path);
    t.rec.onEvent(ev('turn.started', { turnId: 'turn-1', prompt: [{ type: 'text', text: 'hi' }] }));
    await stream(t, 6, 45);
    await vi.waitFor(() => expect(t.delayed().length).toBeGreaterThan(0), { timeout: 10_000, interval: 10 });
    // A turn's end and a flush during the outage come back within their bound, the frames still held.
    const ended = timed(() =>
      t.rec.onEvent(ev('turn.ended', { turnId: 'turn-1', stopReason: 'end_turn', durationMs: 1 })),
    );
    expect(ended).toBeLessThan(BOUND_MS);
    expect(timed(() => t.rec.flush())).toBeLessThan(BOUND_MS);
    expect(t.rec.heldFrames).toBe(40);
    expect(t.rec.pendingFrames).toBe(40);
    expect(t.rec.delayedSince).toBeLessThanOrEqual(Date.now());
    expect(t.delayed()[0]!.since).toBe(t.rec.delayedSince);
    expect((t.delayed()[0]!.error as StoreError).code).toBe('store_busy');
    expect(t.seqs()).toEqual(range(1, 5));
    expect(t.errors).toEqual([]);

    await lock.release();
    await vi.waitFor(() => expect(t.caughtUp()).toHaveLength(1), { timeout: 10_000, interval: 10 });
    expect(t.caughtUp()[0]).toMatchObject({ frames: 40 });
    expect(t.seqs()).toEqual(range(1, 45));
    expect(t.msgs()).toEqual(range(1, 45).map((i) => frame(i).raw));
    expect(t.other.turns.list('s')).toMatchObject([{ turnId: 'turn-1', stopReason: 'end_turn' }]);
    expect(t.rec).toMatchObject({ heldFrames: 0, pendingFrames: 0, lostFrames: 0, lastSeq: 45, error: undefined });
    expect(t.rec.delayedSince).toBeUndefined();
    expect(t.errors).toEqual([]);
    // Recording goes on as before.
    await stream(t, 46, 50);
    t.rec.flush();
    expect(t.seqs()).toEqual(range(1, 50));
    expect(t.caughtUp()).toHaveLength(1);
    t.done();
  });

  it('writer thread: a batch the thread could not commit takes the same road (held, retried, in order)', async () => {
    const t = await setup({ thread: true });
    await stream(t, 1, 5);
    t.rec.flush();
    const lock = await lockHolder(t.store.path);
    // One batch to the thread: it waits out the thread's own busy timeout (5 s), then is held.
    for (let i = 6; i <= 10; i++) t.rec.onFrame(frame(i));
    await vi.waitFor(() => expect(t.delayed().length).toBeGreaterThan(0), { timeout: 20_000, interval: 20 });
    await stream(t, 11, 30); // behind it, in the hold: not handed to the thread
    expect(timed(() => t.rec.flush())).toBeLessThan(BOUND_MS);
    expect(t.rec.heldFrames).toBe(25);
    expect(t.rec.pendingFrames).toBe(25); // none in flight
    await lock.release();
    await vi.waitFor(() => expect(t.caughtUp()).toHaveLength(1), { timeout: 10_000, interval: 10 });
    expect(t.seqs()).toEqual(range(1, 30));
    expect(t.msgs()).toEqual(range(1, 30).map((i) => frame(i).raw));
    expect(t.errors).toEqual([]);
    // Once caught up, batches go to the thread again.
    await stream(t, 31, 33);
    t.rec.flush();
    expect(t.rec.threaded).toBe(true);
    expect(t.seqs()).toEqual(range(1, 33));
    t.done();
  }, 60_000);

  it('writer thread: batches answered late keep their place among those held meanwhile', async () => {
    const t = await setup({ thread: true, maxBatch: 5 });
    for (let i = 1; i <= 5; i++) t.rec.onFrame(frame(i));
    t.rec.flush();
    const lock = await lockHolder(t.store.path);
    // Two batches on the thread: the first waits out its busy timeout (5 s), the second is refused untried.
    for (let i = 6; i <= 15; i++) t.rec.onFrame(frame(i));
    await vi.waitFor(() => expect(t.delayed().length).toBeGreaterThan(0), { timeout: 20_000, interval: 20 });
    for (let i = 16; i <= 20; i++) t.rec.onFrame(frame(i)); // held while the second is still on the thread
    expect(t.rec.pendingFrames).toBe(15);
    await vi.waitFor(() => expect(t.rec.heldFrames).toBe(15), { timeout: 20_000, interval: 20 });
    await lock.release();
    await vi.waitFor(() => expect(t.caughtUp()).toHaveLength(1), { timeout: 10_000, interval: 10 });
    expect(t.msgs()).toEqual(range(1, 20).map((i) => frame(i).raw));
    expect(t.seqs()).toEqual(range(1, 20));
    expect(t.errors).toEqual([]);
    t.done();
  });

  it('writer thread: batches queued behind one that failed for now never land ahead of it, whenever the lock goes', async () => {
    const t = await setup({ thread: true, maxBatch: 5 });
    for (let i = 1; i <= 5; i++) t.rec.onFrame(frame(i));
    t.rec.flush();
    const lock = await lockHolder(t.store.path);
    for (let i = 6; i <= 20; i++) t.rec.onFrame(frame(i)); // three batches queued on the thread
    await vi.waitFor(() => expect(t.delayed().length).toBeGreaterThan(0), { timeout: 20_000, interval: 5 });
    // The lock goes while the later two are still on the thread: tried now, they would commit first.
    await lock.release();
    await vi.waitFor(() => expect(t.caughtUp()).toHaveLength(1), { timeout: 10_000, interval: 10 });
    expect(t.msgs()).toEqual(range(1, 20).map((i) => frame(i).raw));
    expect(t.seqs()).toEqual(range(1, 20));
    expect(t.errors).toEqual([]);
    t.done();
  });

  it('an outage past the frame bound gives up: the held frames are dropped and the loss reported with its count', async () => {
    const t = await setup({ maxBatch: 10, hold: { maxFrames: 20 } });
    await stream(t, 1, 5);
    t.rec.flush();
    const lock = await lockHolder(t.store.path);
    for (let i = 6; i <= 35; i++) t.rec.onFrame(frame(i)); // three batches of 10
    expect(t.errors).toHaveLength(1);
    expect(t.errors[0]).toMatchObject({ code: 'recording_failed', details: { frames: 30, batches: 3 } });
    expect(t.errors[0]!.message).toMatch(/gave up: 30 frames \(3 batches\) .* more than 20 frames held/);
    expect(t.rec).toMatchObject({ lostFrames: 30, heldFrames: 0 });
    await lock.release();
    await stream(t, 36, 40);
    t.rec.flush();
    // Seqs come from the disk: the lost frames leave no gap.
    expect(t.seqs()).toEqual(range(1, 10));
    expect(t.msgs().slice(5)).toEqual(range(36, 40).map((i) => frame(i).raw));
    expect(t.caughtUp()).toEqual([]);
    t.done();
  });

  it('an outage past the time bound gives up on the retry timer, saying how long and how many', async () => {
    const t = await setup({ hold: { maxMs: 300, retryMinMs: 20, retryMaxMs: 50 } });
    const lock = await lockHolder(t.store.path);
    for (let i = 1; i <= 12; i++) t.rec.onFrame(frame(i));
    t.rec.flush();
    expect(t.rec.heldFrames).toBe(12);
    await vi.waitFor(() => expect(t.errors).toHaveLength(1), { timeout: 10_000, interval: 10 });
    expect(t.errors[0]!.message).toMatch(/gave up: 12 frames .* unavailable for \d+ ms \(limit 300 ms\)/);
    expect((t.errors[0]!.cause as StoreError).code).toBe('store_busy');
    expect(t.rec.lostFrames).toBe(12);
    await lock.release();
    t.done();
  });

  it('a permanent error is not held: at once, and when a held batch meets one on its retry', async () => {
    const t = await setup({ maxBatch: 4 });
    const lock = await lockHolder(t.store.path);
    for (let i = 1; i <= 8; i++) t.rec.onFrame(frame(i));
    expect(t.rec.heldFrames).toBe(8);
    // The other process deletes the session: the held batches can never be written.
    await lock.deleteSession('s');
    await lock.release();
    await vi.waitFor(() => expect(t.rec.heldFrames).toBe(0), { timeout: 10_000, interval: 10 });
    expect(t.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/FOREIGN KEY/),
      expect.stringMatching(/FOREIGN KEY/),
    ]);
    expect(t.rec.lostFrames).toBe(8);
    // Now with no outage: dropped at once, not held.
    t.rec.onFrame(frame(9));
    t.rec.flush();
    expect(t.rec).toMatchObject({ heldFrames: 0, pendingFrames: 0, lostFrames: 9 });
    expect(t.errors).toHaveLength(3);
    t.done();
  });

  it('close during the outage returns at once; the held frames still land when the store comes back', async () => {
    const t = await setup();
    const lock = await lockHolder(t.store.path);
    for (let i = 1; i <= 6; i++) t.rec.onFrame(frame(i));
    t.rec.flush();
    expect(timed(() => t.rec.close())).toBeLessThan(BOUND_MS);
    expect(t.rec.heldFrames).toBe(6);
    await lock.release();
    await vi.waitFor(() => expect(t.caughtUp()).toHaveLength(1), { timeout: 10_000, interval: 10 });
    expect(t.seqs()).toEqual(range(1, 6));
    expect(t.errors).toEqual([]);
    t.done();
  });

  it('closing the store during the outage gives up what is held, and says how much', async () => {
    const t = await setup();
    const lock = await lockHolder(t.store.path);
    for (let i = 1; i <= 7; i++) t.rec.onFrame(frame(i));
    t.rec.flush();
    t.store.close();
    expect(t.errors).toHaveLength(1);
    expect(t.errors[0]!.message).toMatch(/gave up: 7 frames .* the store was closed/);
    expect(t.rec.lostFrames).toBe(7);
    await lock.release();
    t.other.close();
  });
});

describe('a commit whose answer was lost (a network store)', () => {
  /** The store commits, then reports store_busy, as a PostgreSQL COMMIT whose answer never came back. */
  const answerLost = (s: Store): Store => {
    const flaky = Object.create(s) as Store;
    let lose = 1;
    flaky.commitBatch = (b) => {
      const last = s.commitBatch(b);
      if (lose-- > 0) throw new StoreError('store_busy', 'PostgreSQL did not answer within 5000 ms');
      return last;
    };
    return flaky;
  };

  it('is not written twice: the retry finds its frames on disk', async () => {
    const t = await setup({ hold: { retryMinMs: 10 } }, answerLost);
    for (let i = 1; i <= 5; i++) t.rec.onFrame(frame(i));
    t.rec.flush();
    expect(t.rec.heldFrames).toBe(5);
    await vi.waitFor(() => expect(t.caughtUp()).toHaveLength(1), { timeout: 10_000, interval: 10 });
    expect(t.seqs()).toEqual(range(1, 5));
    for (let i = 6; i <= 8; i++) t.rec.onFrame(frame(i));
    t.rec.flush();
    expect(t.seqs()).toEqual(range(1, 8));
    expect(t.msgs()).toEqual(range(1, 8).map((i) => frame(i).raw));
    expect(t.errors).toEqual([]);
    t.done();
  });
});
