/**
 * Issue 39: "Postgres restarted mid-turn; 0 frames lost". A real harness records the demo agent's
 * slow stream into PostgreSQL; the server is stopped mid-turn and started again. The turn goes on,
 * the recorder holds what it cannot write, says so, catches up, and every frame is stored in order.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RecordingDelay, RecordingError } from '../../src/harness/types.js';
import { openStore, type Store } from '../../src/store/index.js';
import { startCluster, type Cluster } from '../store/pg/cluster.js';
import { makeHarness, place } from '../harness/helpers.js';

vi.setConfig({ testTimeout: 120_000 });

let cluster: Cluster;
const stores: Store[] = [];
beforeAll(() => {
  cluster = startCluster();
  cluster.sql('CREATE DATABASE restart1');
});
afterAll(() => {
  try {
    for (const s of stores) s.close();
  } finally {
    cluster?.destroy();
  }
});

describe('PostgreSQL restarted mid-turn', () => {
  it('the turn goes on, recording is held and caught up, and no frame is lost', async () => {
    const url = cluster.urlOf('restart1');
    const p = place();
    const delays: RecordingDelay[] = [];
    const errors: RecordingError[] = [];
    const h = makeHarness(p, {
      store: url,
      storeBusyTimeoutMs: 1_000,
      vars: { TALARIA_DEMO_SLOW_CHUNKS: '300', TALARIA_DEMO_SLOW_DELAY_MS: '20' },
      onRecordingDelay: (e) => delays.push(e),
      onRecordingError: (e) => errors.push(e),
    });
    const s = await h.workspaces.open(p.userHome).newSession({ provider: 'demo' });
    const turn = s.prompt('slow');
    await vi.waitFor(() => expect(s.recording.lastSeq).toBeGreaterThan(30), { timeout: 20_000, interval: 10 });
    cluster.stop();
    await vi.waitFor(() => expect(s.recording.heldFrames).toBeGreaterThan(0), { timeout: 20_000, interval: 10 });
    cluster.start();
    expect((await turn.result).stopReason).toBe('end_turn');
    await vi.waitFor(() => expect(delays.at(-1)).toMatchObject({ type: 'recording.caught_up', sessionId: s.id }), {
      timeout: 30_000,
      interval: 20,
    });
    expect(delays[0]).toMatchObject({ type: 'recording.delayed', sessionId: s.id });
    expect(s.recording).toMatchObject({ heldFrames: 0, lostFrames: 0, error: undefined });
    expect(errors).toEqual([]);
    await h.close();
    // Read back through a store of its own: every frame, in order, and the whole reply.
    const pg = openStore({ url });
    stores.push(pg);
    const rows = pg.wire.rows(s.id);
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    const chunks = rows.filter((r) => r.msg.includes('from the slow demo'));
    expect(chunks).toHaveLength(300);
    for (let i = 1; i <= 300; i++) expect(chunks[i - 1]!.msg).toContain(`Chunk ${i} of 300 `);
    expect(pg.turns.list(s.id).map((t) => t.stopReason)).toEqual(['end_turn']);
  });
});
