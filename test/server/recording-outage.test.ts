/**
 * A store outage seen from `/ws` (issue 39): another process holds the SQLite write lock past the
 * server store's busy timeout (test/harness/lock-holder-child.ts) while the demo agent streams a
 * turn. A subscribed client gets `recording.delayed` live, then `recording.caught_up` once the lock
 * goes; a snapshot taken during the outage says delayed, one after says nothing; the wire log has
 * every frame and the event log every event (the recording events too: nothing it held is lost).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StreamEvent } from '../../src/server/contract/index.js';
import { RecordingStates } from '../../src/server/recording.js';
import { TalariaError } from '../../src/protocol/errors.js';
import { killLockHolders, lockHolder } from '../harness/lock-holder.js';
import { Probe, contiguous, isEvent, demoSession, serve, snapOf, watching } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });
afterEach(killLockHolders);

const CHUNKS = 3000;
/** The chunks seen in a stream (the first comes with its entry, the rest appended). */
const chunksIn = (events: readonly StreamEvent[]) =>
  events.reduce((n, e) => {
    const text =
      e.type === 'entry.appended'
        ? e.text
        : e.type === 'entry.added'
          ? ((e.entry as { text?: string }).text ?? '')
          : '';
    return n + (text.match(/Chunk \d+ of \d+/g)?.length ?? 0);
  }, 0);

/** A new client's snapshot of the session (subscribe without `since`). */
async function snapshotNow(s: Awaited<ReturnType<typeof serve>>, id: string) {
  const p = new Probe(s.server);
  await p.wait((m) => m.type === 'welcome');
  p.send({ type: 'subscribe', sessionId: id });
  const snap = snapOf(await p.wait((m) => m.type === 'snapshot'))!;
  p.close();
  return snap;
}

describe('/ws: recording trouble is never silent', () => {
  it('a locked store mid-turn: recording.delayed then recording.caught_up live, the snapshot says delayed, nothing lost', async () => {
    const s = await serve({
      storeBusyTimeoutMs: 20,
      vars: { TALARIA_DEMO_SLOW_CHUNKS: String(CHUNKS), TALARIA_DEMO_SLOW_DELAY_MS: '3' },
    });
    const id = await demoSession(s);
    const a = await watching(s.server, id);
    const from = a.events(id)[0]?.seq ?? snapOf(a.messages.find((m) => m.type === 'snapshot'))!.seq + 1;
    await s.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    await vi.waitFor(() => expect(chunksIn(a.events(id))).toBeGreaterThan(20), { timeout: 30_000, interval: 20 });

    const lock = await lockHolder(s.harness.store.path);
    const delayed = await a.wait(isEvent(id, 'recording.delayed'));
    expect(delayed.type === 'event' && delayed.event).toMatchObject({
      type: 'recording.delayed',
      frames: expect.any(Number) as number,
      since: expect.any(Number) as number,
      error: expect.stringMatching(/locked|busy/i) as string,
    });
    // The stream goes on live while nothing is stored.
    const before = chunksIn(a.events(id));
    await vi.waitFor(() => expect(chunksIn(a.events(id))).toBeGreaterThan(before + 20), {
      timeout: 30_000,
      interval: 20,
    });
    const during = await snapshotNow(s, id);
    expect(during.recording?.delayed?.frames).toBeGreaterThan(0);
    expect(s.server.hub.get(id)!.hs.recording.heldFrames).toBeGreaterThan(0);
    // The event log keeps what the store refuses (and retries): the live stream did not wait for it.
    expect(s.server.hub.log.waiting).toBeGreaterThan(0);

    await lock.release();
    const caught = await a.wait(isEvent(id, 'recording.caught_up'));
    expect(caught.type === 'event' && caught.event).toMatchObject({ type: 'recording.caught_up' });
    await a.wait(isEvent(id, 'turn.ended'));
    expect(chunksIn(a.events(id))).toBe(CHUNKS);
    const after = await snapshotNow(s, id);
    expect(after.recording).toBeUndefined();

    // Nothing lost: every frame on disk with contiguous seqs, every event in the log.
    const hs = s.server.hub.get(id)!.hs;
    hs.flush();
    expect(hs.recording).toMatchObject({ lostFrames: 0, heldFrames: 0, error: undefined });
    const wire = s.harness.store.wire.rows(id);
    expect(wire.map((r) => r.seq)).toEqual(wire.map((_, i) => i + 1));
    expect(wire.at(-1)!.seq).toBe(hs.recording.lastSeq);
    const stored = JSON.stringify(wire.map((r) => r.msg)).match(/Chunk \d+ of \d+/g) ?? [];
    expect(new Set(stored).size).toBe(CHUNKS);
    await vi.waitFor(() => expect(s.server.hub.log.waiting).toBe(0), { timeout: 10_000, interval: 20 });
    const logged = s.server.events.after(id, from - 1)!;
    contiguous(logged, from);
    expect(logged.map((e) => e.seq)).toEqual(a.events(id).map((e) => e.seq));
    expect(logged.map((e) => e.type)).toEqual(expect.arrayContaining(['recording.delayed', 'recording.caught_up']));
    a.close();
  });

  it("the server's recording state: delayed until caught up; a failure (its cause's message) stays, the first one", () => {
    const sent: [string, string, Record<string, unknown>][] = [];
    const r = new RecordingStates((id, type, body) => void sent.push([id, type, body]));
    const busy = new Error('database is locked');
    r.delay({ type: 'recording.delayed', sessionId: 's', frames: 4, bytes: 400, since: 1000, error: busy });
    expect(r.of('s')).toEqual({
      recording: { delayed: { frames: 4, bytes: 400, since: 1000, error: 'database is locked' } },
    });
    const fail = (m: string) =>
      new TalariaError(
        'recording_failed',
        `session s is not being stored completely: ${m}`,
        {},
        { cause: new Error(m) },
      );
    r.error({ sessionId: 's', error: fail('FOREIGN KEY constraint failed') });
    r.error({ sessionId: 's', error: fail('later') });
    r.delay({ type: 'recording.caught_up', sessionId: 's', frames: 4, outageMs: 50 });
    expect(r.of('s')).toEqual({
      recording: { failed: { code: 'recording_failed', message: 'FOREIGN KEY constraint failed' } },
    });
    expect(r.of('other')).toEqual({});
    expect(sent.map(([id, type]) => `${id} ${type}`)).toEqual([
      's recording.delayed',
      's recording.failed',
      's recording.failed',
      's recording.caught_up',
    ]);
  });
});
