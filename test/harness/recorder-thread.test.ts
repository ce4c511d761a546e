/**
 * The recorder with its writer thread (store/writer-thread.ts): the same promises as inline
 * (recorder.test.ts) — what a tick brings is committed and visible to other connections, a turn's
 * end is on disk before the turn is reported ended, seqs come from the disk, a batch that cannot
 * be written is reported the same way — and the thread never keeps a process alive.
 */
import { describe, it, expect, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Frame } from '../../src/protocol/types.js';
import type { SessionEvent } from '../../src/session/events.js';
import type { Entry } from '../../src/thread/types.js';
import { openStore } from '../../src/store/index.js';
import { createRecorder, writerThreadDefault, type FlushInfo, type Recorder } from '../../src/harness/recorder.js';
import { tempHome } from '../store/helpers.js';
import { rawDb } from '../../src/store/sqlite.js';

const msgOf = (i: number) => ({ jsonrpc: '2.0', method: 'session/update', params: { n: i } });
const frame = (i: number, dir: Frame['dir'] = 'agent->client'): Frame => ({
  t_ms: i,
  dir,
  msg: msgOf(i),
  raw: JSON.stringify(msgOf(i)),
});
let evSeq = 0;
const ev = (type: SessionEvent['type'], body: Record<string, unknown>): SessionEvent =>
  ({ type, sessionId: 'agent-1', seq: ++evSeq, at: 1000 + evSeq, ...body }) as unknown as SessionEvent;
const msg = (text: string): Entry => ({ id: 'e1', kind: 'assistant_message', text, blocks: [], turnId: 'turn-1' });

/** A recorder whose writer thread is up, and a second connection that sees only committed rows. */
async function threaded(opts: Partial<Parameters<typeof createRecorder>[1]> = {}) {
  const home = tempHome('rec-thread');
  const store = openStore({ home });
  const other = openStore({ home });
  store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
  const flushes: FlushInfo[] = [];
  const errors: Error[] = [];
  const rec: Recorder = createRecorder(store, {
    sessionKey: 's',
    thread: true,
    onFlush: (i) => flushes.push(i),
    onError: (e) => errors.push(e),
    ...opts,
  });
  await vi.waitFor(() => expect(rec.threaded).toBe(true), { timeout: 15_000, interval: 10 });
  const done = () => (store.close(), other.close());
  return { store, other, rec, flushes, errors, done };
}

describe('recorder on the writer thread', () => {
  it("commits a tick's frames on the thread: in order, visible to another connection, reported by onFlush", async () => {
    const t = await threaded();
    for (let i = 1; i <= 3; i++) t.rec.onFrame(frame(i, i === 2 ? 'client->agent' : 'agent->client'));
    expect(t.rec.pendingFrames).toBe(3);
    await vi.waitFor(() => expect(t.flushes).toEqual([{ frames: 3, lastSeq: 3, entries: 0 }]));
    expect(t.other.wire.rows('s').map((r) => [r.seq, r.dir, r.msg])).toEqual([
      [1, 'agent->client', frame(1).raw],
      [2, 'client->agent', frame(2).raw],
      [3, 'agent->client', frame(3).raw],
    ]);
    expect(t.rec.lastSeq).toBe(3);
    expect(t.rec.pendingFrames).toBe(0);
    t.done();
  });

  it('turn.ended waits for the thread: frames, entries, the turn and the thread meta are on disk when onEvent returns', async () => {
    const t = await threaded();
    t.rec.onFrame(frame(1));
    t.rec.onEvent(ev('turn.started', { turnId: 'turn-1', prompt: [{ type: 'text', text: 'hi' }] }));
    t.rec.onEvent(ev('entry.added', { index: 0, entry: msg('Hel') }));
    t.rec.onEvent(ev('plan.updated', { plan: [{ content: 'x', status: 'pending' }] }));
    t.rec.onFrame(frame(2));
    t.rec.onEvent(
      ev('turn.ended', { turnId: 'turn-1', stopReason: 'end_turn', durationMs: 5, usage: { inputTokens: 1 } }),
    );
    expect(t.other.wire.count('s')).toBe(2);
    expect(t.other.entries.list('s')).toEqual([msg('Hel')]);
    expect(t.other.turns.list('s')).toMatchObject([
      { turnId: 'turn-1', stopReason: 'end_turn', usage: { inputTokens: 1 }, durationMs: 5 },
    ]);
    expect(t.other.entries.getMeta('s')).toMatchObject({ plan: [{ content: 'x' }] });
    expect(t.other.entries.getMeta('s')?.openTurnId).toBeUndefined();
    expect(t.rec.lastSeq).toBe(2);
    t.done();
  });

  it('maxBatch hands a batch over without waiting for it; flush waits for every batch', async () => {
    const t = await threaded({ maxBatch: 2 });
    for (let i = 1; i <= 5; i++) t.rec.onFrame(frame(i));
    expect(t.rec.pendingFrames).toBe(5); // two batches in flight, one frame held
    t.rec.flush();
    expect(t.rec.pendingFrames).toBe(0);
    expect(t.other.wire.rows('s').map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(t.flushes.map((f) => f.lastSeq)).toEqual([2, 4, 5]);
    t.done();
  });

  it("a batch the thread's connection cannot write is reported as inline: onError, lostFrames, recording goes on", async () => {
    const t = await threaded();
    t.rec.onFrame(frame(1));
    t.rec.flush();
    // The session row vanishes behind the recorder's back: the thread's next batch violates the foreign key.
    rawDb(t.store).pragma('foreign_keys = OFF');
    rawDb(t.store).prepare('DELETE FROM sessions').run();
    rawDb(t.store).pragma('foreign_keys = ON');
    t.rec.onFrame(frame(2));
    expect(() => t.rec.flush()).not.toThrow();
    expect(t.errors.map((e) => e.message)).toEqual([expect.stringMatching(/FOREIGN KEY/)]);
    expect((t.errors[0] as Error & { code?: string }).code).toMatch(/^SQLITE_CONSTRAINT/);
    expect(t.rec.pendingFrames).toBe(0);
    t.store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    t.rec.onFrame(frame(3));
    t.rec.flush();
    expect(t.store.wire.rows('s').map((r) => r.seq)).toEqual([1, 2]);
    expect(t.rec.lastSeq).toBe(2);
    expect(t.rec.lostFrames).toBe(1);
    expect(t.rec.error?.message).toMatch(/FOREIGN KEY/);
    expect(t.rec.threaded).toBe(true);
    t.done();
  });

  it('is off unless TALARIA_WRITER_THREAD=1 (it did not pay in the bench: see writerThreadDefault)', () => {
    expect(writerThreadDefault({})).toBe(false);
    expect(writerThreadDefault({ TALARIA_WRITER_THREAD: '0' })).toBe(false);
    expect(writerThreadDefault({ TALARIA_WRITER_THREAD: '1' })).toBe(true);
  });

  it('an in-memory store records inline (a thread cannot share it)', () => {
    const store = openStore({ path: ':memory:' });
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const rec = createRecorder(store, { sessionKey: 's', thread: true });
    rec.onFrame(frame(1));
    rec.flush();
    expect(rec.threaded).toBe(false);
    expect(store.wire.count('s')).toBe(1);
    store.close();
  });

  it('the thread keeps no process alive: a process that never closes its store exits, its turn on disk', async () => {
    const home = tempHome('rec-thread-exit');
    const child = spawn(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), fileURLToPath(new URL('./writer-exit-child.ts', import.meta.url)), home],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    // A child kept alive by the thread is killed, not left behind: the test then fails on its code.
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await exited.finally(() => clearTimeout(timer));
    expect(out).toBe('threaded\n');
    expect(code).toBe(0);
    const store = openStore({ home });
    expect(store.wire.count('victim')).toBe(100);
    expect(store.turns.list('victim')).toMatchObject([{ stopReason: 'end_turn' }]);
    store.close();
  }, 30_000);
});
