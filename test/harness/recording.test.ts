/** Recording is never silently lost; one writer per stored session; stored rules are checked. */
import { describe, it, expect, vi, afterEach } from 'vitest';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { permissionRules, toPermissionRule } from '../../src/harness/rules.js';
import { holderAlive } from '../../src/harness/session-locks.js';
import { isTalariaError } from '../../src/protocol/errors.js';
import type { RecordingDelay, RecordingError } from '../../src/harness/types.js';
import { makeHarness, place } from './helpers.js';
import { rawDb } from '../../src/store/sqlite.js';
import { killLockHolders, lockHolder } from './lock-holder.js';

vi.setConfig({ testTimeout: 60_000 });

describe('recording failures are never silent', () => {
  it('frames the store cannot take make HarnessSession.recording.error and onRecordingError say so', async () => {
    const p = place();
    const reported: RecordingError[] = [];
    const h = makeHarness(p, { onRecordingError: (e) => reported.push(e) });
    const s = await h.workspaces.open(p.userHome).newSession({ provider: 'demo' });
    expect(s.recording.error).toBeUndefined();
    // The row vanishes behind the harness's back: every later batch violates the foreign key.
    rawDb(h.store).pragma('foreign_keys = OFF');
    rawDb(h.store).prepare('DELETE FROM sessions WHERE id = ?').run(s.id);
    rawDb(h.store).pragma('foreign_keys = ON');
    const r = await s.prompt('hello').result;
    expect(r.stopReason).toBe('end_turn');
    expect(s.recording.error).toMatchObject({ code: 'recording_failed' });
    expect(s.recording.error!.message).toMatch(
      new RegExp(`session ${s.id} is not being stored completely: .*FOREIGN KEY`),
    );
    expect(s.recording.lostFrames).toBeGreaterThan(0);
    expect(reported[0]).toMatchObject({ sessionId: s.id });
    expect(reported[0]!.error).toBe(s.recording.error);
    await h.close();
  });
});

describe('recording through a store outage', () => {
  afterEach(killLockHolders);

  it('a store locked by another process delays recording: onRecordingDelay and recording say so; nothing is lost', async () => {
    const p = place();
    const delays: RecordingDelay[] = [];
    const errors: RecordingError[] = [];
    const h = makeHarness(p, { onRecordingDelay: (e) => delays.push(e), onRecordingError: (e) => errors.push(e) });
    const s = await h.workspaces.open(p.userHome).newSession({ provider: 'demo' });
    expect((await s.prompt('hello').result).stopReason).toBe('end_turn');
    const before = s.recording.lastSeq;
    const lock = await lockHolder(h.store.path);
    // The turn runs and ends while the store is locked (each try waits out the 5 s busy timeout).
    const r = await s.prompt('again').result;
    expect(r.stopReason).toBe('end_turn');
    expect(s.recording.heldFrames).toBeGreaterThan(0);
    expect(s.recording.delayedSince).toBeTypeOf('number');
    expect(delays[0]).toMatchObject({ type: 'recording.delayed', sessionId: s.id });
    expect(h.store.turns.list(s.id)).toHaveLength(1);
    await lock.release();
    await vi.waitFor(() => expect(delays.at(-1)).toMatchObject({ type: 'recording.caught_up', sessionId: s.id }), {
      timeout: 20_000,
      interval: 20,
    });
    expect(s.recording).toMatchObject({ heldFrames: 0, lostFrames: 0, error: undefined, delayedSince: undefined });
    expect(h.store.turns.list(s.id).map((t) => t.stopReason)).toEqual(['end_turn', 'end_turn']);
    const seqs = h.store.wire.rows(s.id).map((row) => row.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(seqs.length).toBeGreaterThan(before);
    expect(errors).toEqual([]);
    await h.close();
  });
});

describe('one writer per stored session', () => {
  it('a lease left by a process that is gone is taken over; a live one is not', async () => {
    const p = place();
    const h = makeHarness(p);
    const ws = h.workspaces.open(p.userHome);
    const s = await ws.newSession({ provider: 'demo' });
    await s.close();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    // A crashed holder on this host: its lease is stale.
    h.store.leases.acquire(s.id, { owner: 'crashed', pid: gone, host: hostname() }, () => true);
    expect(holderAlive(h.store.leases.get(s.id)!)).toBe(false);
    const again = await ws.openSession(s.id);
    expect(h.store.leases.get(s.id)).toMatchObject({ pid: process.pid });
    await again.close();
    expect(h.store.leases.get(s.id)).toBeUndefined();
    // A live holder elsewhere (this test process, under another owner) keeps it.
    h.store.leases.acquire(s.id, { owner: 'other', pid: process.pid, host: hostname() }, () => true);
    const err = await ws.openSession(s.id).catch((e: unknown) => e);
    expect(isTalariaError(err, 'session_busy')).toBe(true);
    expect((err as Error).message).toMatch(
      new RegExp(`session ${s.id} is open in another Talaria process ${process.pid}`),
    );
  });

  it('opening a session this harness has open already is refused; after close it opens', async () => {
    const p = place();
    const h = makeHarness(p);
    const ws = h.workspaces.open(p.userHome);
    const s = await ws.newSession({ provider: 'demo' });
    const err = await ws.openSession(s.id).catch((e: unknown) => e);
    expect(isTalariaError(err, 'session_busy')).toBe(true);
    await s.close();
    const again = await ws.openSession(s.id);
    expect(again.id).toBe(s.id);
  });
});

describe('stored permission rules', () => {
  it('only valid rules reach the policy', () => {
    expect(
      toPermissionRule({ decision: 'allow', toolKind: ['edit', 'read'], pathGlob: '/w/**', source: 'user', id: '3' }),
    ).toEqual({
      decision: 'allow',
      toolKind: ['edit', 'read'],
      pathGlob: '/w/**',
      source: 'user',
      id: '3',
    });
    const logged: unknown[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (_m: string, d?: unknown) => void logged.push(d) };
    const rules = permissionRules(
      [
        { decision: 'maybe' },
        { decision: 'deny', command: 42 },
        { decision: 'ask', source: 'elsewhere' },
        { decision: 'deny', command: 'rm *' },
      ],
      logger,
    );
    expect(rules).toEqual([{ decision: 'deny', command: 'rm *' }]);
    expect(logged).toHaveLength(3);
  });
});
