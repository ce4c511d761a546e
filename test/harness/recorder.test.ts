import { describe, it, expect, vi } from 'vitest';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, WireLogLine } from '../../src/protocol/types.js';
import type { SessionEvent } from '../../src/session/events.js';
import type { Entry } from '../../src/thread/types.js';
import { snapshot, threadFromSnapshot, toMarkdown } from '../../src/thread/index.js';
import { openStore, StoreError } from '../../src/store/index.js';
import { createRecorder, DEFAULT_COMMIT_GAP_MS, type FlushInfo, type Recorder } from '../../src/harness/recorder.js';
import { spawnFake } from '../session/helpers.js';
import { corruptTable, freshStore, tempHome } from '../store/helpers.js';
import { rawDb } from '../../src/store/sqlite.js';

const msgOf = (i: number) => ({ jsonrpc: '2.0', method: 'session/update', params: { n: i } });
const frame = (i: number): Frame => ({ t_ms: i, dir: 'agent->client', msg: msgOf(i), raw: JSON.stringify(msgOf(i)) });
/** What the store gives back for frame(i). */
const line = (i: number): WireLogLine => ({ t_ms: i, dir: 'agent->client', msg: msgOf(i) });

let evSeq = 0;
function ev<T extends SessionEvent['type']>(
  type: T,
  body: Record<string, unknown>,
  sessionId = 'agent-1',
): SessionEvent {
  return { type, sessionId, seq: ++evSeq, at: 1000 + evSeq, ...body } as unknown as SessionEvent;
}
const msg = (text: string): Entry => ({ id: 'e1', kind: 'assistant_message', text, blocks: [], turnId: 'turn-1' });

/** A store plus a second, independent connection to the same file: it sees only committed data. */
function setup(opts: Partial<Parameters<typeof createRecorder>[1]> = {}) {
  const home = tempHome('rec');
  const store = openStore({ home });
  const other = openStore({ home });
  store.sessions.create({ id: 's', provider: 'p', cwd: '/', agentSessionId: 'agent-1' });
  const flushes: FlushInfo[] = [];
  let wake: (() => void) | undefined;
  // The inline path (the writer thread's own tests are in recorder-thread.test.ts).
  const rec = createRecorder(store, {
    sessionKey: 's',
    thread: false,
    ...opts,
    onFlush: (i) => {
      flushes.push(i);
      wake?.();
    },
  });
  const nextFlush = () => new Promise<void>((r) => (wake = r));
  const committed = () => other.wire.count('s');
  const done = () => (store.close(), other.close());
  return { store, other, rec, flushes, nextFlush, committed, done };
}

describe('recorder', () => {
  it('commits the frames of one tick together, visible to another connection', async () => {
    const t = setup();
    const flushed = t.nextFlush();
    for (let i = 1; i <= 3; i++) t.rec.onFrame(frame(i));
    expect(t.rec.pendingFrames).toBe(3);
    await flushed;
    expect(t.flushes).toEqual([{ frames: 3, lastSeq: 3, entries: 0 }]);
    expect(t.committed()).toBe(3);
    expect(t.other.wire.read('s')).toEqual([line(1), line(2), line(3)]);
    expect(t.rec.lastSeq).toBe(3);
    t.done();
  });

  it('stores the bytes each frame crossed the pipe with, not the message serialised again', () => {
    const t = setup();
    // Spacing, key order and escapes as the agent sent them.
    const raw = '{ "params": {"n": 1, "text": "caf\\u00e9"}, "method": "session/update", "jsonrpc": "2.0" }';
    t.rec.onFrame({ t_ms: 1, dir: 'agent->client', msg: JSON.parse(raw) as Frame['msg'], raw });
    t.rec.flush();
    expect(t.other.wire.rows('s').map((r) => r.msg)).toEqual([raw]);
    expect(t.other.wire.exportNdjson('s')).toBe(`{"t_ms":1,"dir":"agent->client","msg":${raw}}\n`);
    t.done();
  });

  it('the stored form of a frame comes from one place (storedLine): redaction plugs in there', () => {
    const t = setup({ storedLine: (f) => f.raw.replace('secret', '[redacted]') });
    const raw = '{"jsonrpc":"2.0","method":"x","params":{"token":"secret"}}';
    t.rec.onFrame({ t_ms: 1, dir: 'client->agent', msg: JSON.parse(raw) as Frame['msg'], raw });
    t.rec.flush();
    expect(t.other.wire.rows('s').map((r) => r.msg)).toEqual([
      '{"jsonrpc":"2.0","method":"x","params":{"token":"[redacted]"}}',
    ]);
    t.done();
  });

  it('by default a tick of several hundred frames is one commit (maxBatch 1024), not one per 256', async () => {
    const t = setup();
    const flushed = t.nextFlush();
    for (let i = 1; i <= 900; i++) t.rec.onFrame(frame(i));
    await flushed;
    expect(t.flushes).toEqual([{ frames: 900, lastSeq: 900, entries: 0 }]);
    expect(t.committed()).toBe(900);
    t.done();
  });

  it('a paced stream (one frame per tick) waits commitGapMs after a commit, not one commit per frame', async () => {
    const tick = () => new Promise<void>((r) => setImmediate(r));
    const paced = async (t: ReturnType<typeof setup>, n: number) => {
      for (let i = 1; i <= n; i++) {
        t.rec.onFrame(frame(i));
        await tick();
        await tick();
      }
    };
    // A gap no test run reaches: after the first commit, nothing but a flush commits.
    const gapped = setup({ commitGapMs: 60_000 });
    await paced(gapped, 40);
    expect(gapped.flushes.map((f) => f.frames)).toEqual([1]);
    expect(gapped.rec.pendingFrames).toBe(39);
    gapped.rec.flush();
    expect(gapped.committed()).toBe(40);
    gapped.done();
    // commitGapMs 0 is the old cadence: one commit per tick.
    const perTick = setup({ commitGapMs: 0 });
    await paced(perTick, 40);
    expect(perTick.flushes.length).toBe(40);
    perTick.done();
    expect(DEFAULT_COMMIT_GAP_MS).toBe(10);
  });

  it('a batch held by the gap is committed when its timer fires', async () => {
    const t = setup({ commitGapMs: 5 });
    t.rec.onFrame(frame(1));
    t.rec.flush();
    const next = t.nextFlush();
    t.rec.onFrame(frame(2));
    await next;
    expect(t.committed()).toBe(2);
    t.done();
  });

  it('commits at once when maxBatch frames are pending', () => {
    const t = setup({ maxBatch: 2 });
    for (let i = 1; i <= 5; i++) t.rec.onFrame(frame(i));
    expect(t.committed()).toBe(4);
    expect(t.rec.pendingFrames).toBe(1);
    t.done();
  });

  it('turn.ended commits everything synchronously: frames, entries, the turn, session activity', () => {
    const t = setup();
    t.rec.onFrame(frame(1));
    t.rec.onEvent(ev('turn.started', { turnId: 'turn-1', prompt: [{ type: 'text', text: 'hi' }] }));
    t.rec.onEvent(ev('entry.added', { index: 0, entry: msg('Hel') }));
    t.rec.onFrame(frame(2));
    t.rec.onEvent(
      ev('turn.ended', { turnId: 'turn-1', stopReason: 'end_turn', durationMs: 5, usage: { inputTokens: 1 } }),
    );
    expect(t.committed()).toBe(2);
    expect(t.other.entries.list('s')).toEqual([msg('Hel')]);
    expect(t.other.turns.list('s')).toMatchObject([
      {
        turnId: 'turn-1',
        prompt: [{ type: 'text', text: 'hi' }],
        stopReason: 'end_turn',
        usage: { inputTokens: 1 },
        durationMs: 5,
      },
    ]);
    expect(t.other.sessions.get('s')!.lastActiveAt).toBeGreaterThan(1000);
    t.done();
  });

  it('coalesces entry updates within a tick: one write of the latest state', async () => {
    const t = setup();
    const flushed = t.nextFlush();
    t.rec.onEvent(ev('entry.added', { index: 0, entry: msg('') }));
    let text = '';
    for (let i = 0; i < 100; i++) t.rec.onEvent(ev('entry.updated', { index: 0, entry: msg((text += `${i},`)) }));
    await flushed;
    expect(t.flushes).toEqual([{ frames: 0, lastSeq: 0, entries: 1 }]);
    expect(t.other.entries.list('s')).toEqual([msg(text)]);
    t.done();
  });

  it('keeps the thread meta (plan, commands, mode, config, context, title, open turn) and the session title', async () => {
    const t = setup();
    const flushed = t.nextFlush();
    t.rec.onEvent(ev('plan.updated', { plan: [{ content: 'a', status: 'pending' }] }));
    t.rec.onEvent(ev('commands.updated', { commands: [{ name: 'help' }] }));
    t.rec.onEvent(ev('mode.updated', { modeId: 'code' }));
    t.rec.onEvent(ev('config.updated', { configOptions: [{ id: 'model' }] }));
    t.rec.onEvent(ev('context.updated', { context: { used: 10, size: 100 } }));
    t.rec.onEvent(ev('info.updated', { title: 'Agent title', updatedAt: '2025-01-01' }));
    t.rec.onEvent(ev('turn.started', { turnId: 'turn-1', prompt: [] }));
    t.rec.onEvent(ev('session.state', { state: 'running', previous: 'idle' }));
    await flushed;
    expect(t.other.entries.getMeta('s')).toEqual({
      plan: [{ content: 'a', status: 'pending' }],
      availableCommands: [{ name: 'help' }],
      currentModeId: 'code',
      configOptions: [{ id: 'model' }],
      context: { used: 10, size: 100 },
      title: 'Agent title',
      updatedAt: '2025-01-01',
      openTurnId: 'turn-1',
    });
    expect(t.other.sessions.get('s')!.title).toBe('Agent title');
    t.rec.onEvent(ev('turn.ended', { turnId: 'turn-1', stopReason: 'end_turn', durationMs: 1 }));
    expect(t.other.entries.getMeta('s')!.openTurnId).toBeUndefined();
    t.done();
  });

  it("audits permission.decided; the broker's richer record replaces it when both arrive", async () => {
    const t = setup();
    let flushed = t.nextFlush();
    t.rec.onEvent(
      ev('permission.decided', {
        requestKey: 'r1',
        toolCallId: 'tc1',
        outcome: { outcome: 'cancelled' },
        decidedBy: 'cancel',
        reason: 'turn cancelled',
      }),
    );
    await flushed;
    expect(t.other.permissions.listAudit('s')).toMatchObject([
      { requestKey: 'r1', agentSessionId: 'agent-1', decidedBy: 'cancel' },
    ]);
    flushed = t.nextFlush();
    t.rec.onEvent(
      ev('permission.decided', {
        requestKey: 'r2',
        toolCallId: 'tc2',
        outcome: { outcome: 'selected', optionId: 'y' },
        decidedBy: 'user',
        reason: 'r',
      }),
    );
    t.rec.onPermissionDecision({
      requestKey: 'r2',
      sessionId: 'agent-1',
      toolCallId: 'tc2',
      outcome: { outcome: 'selected', optionId: 'y' },
      optionKind: 'allow_once',
      decidedBy: 'user',
      reason: 'r',
      at: 5,
      subject: { sessionId: 'agent-1', toolCallId: 'tc2', paths: [], roots: [] },
    });
    // From now on only the richer source counts: this event is not audited twice.
    t.rec.onEvent(
      ev('permission.decided', {
        requestKey: 'r3',
        toolCallId: 'tc3',
        outcome: { outcome: 'cancelled' },
        decidedBy: 'cancel',
        reason: 'x',
      }),
    );
    await flushed;
    const rows = t.other.permissions.listAudit('s');
    expect(rows.map((r) => r.requestKey)).toEqual(['r1', 'r2']);
    expect(rows[1]).toMatchObject({ optionKind: 'allow_once', subject: { toolCallId: 'tc2' } });
    t.done();
  });

  it("with agentSessionId set, ignores other sessions' events", async () => {
    const t = setup({ agentSessionId: 'agent-1' });
    const flushed = t.nextFlush();
    t.rec.onEvent(ev('entry.added', { index: 0, entry: msg('other') }, 'agent-2'));
    t.rec.onEvent(ev('entry.added', { index: 0, entry: msg('mine') }, 'agent-1'));
    await flushed;
    expect(t.other.entries.list('s')).toEqual([msg('mine')]);
    t.done();
  });

  it('continues the sequence of an existing log; resetThread starts the thread afresh', () => {
    const store = freshStore();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    store.wire.append('s', [frame(1), frame(2)]);
    store.entries.upsert('s', 5, msg('old'));
    const rec = createRecorder(store, { sessionKey: 's', resetThread: true });
    expect(store.entries.count('s')).toBe(0);
    rec.onFrame(frame(3));
    rec.close();
    expect(store.wire.rows('s').map((r) => r.seq)).toEqual([1, 2, 3]);
    rec.onFrame(frame(4)); // closed: ignored
    rec.flush();
    expect(store.wire.count('s')).toBe(3);
  });

  it('store.close() flushes pending frames first', () => {
    const home = tempHome('rec');
    const store = openStore({ home });
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const rec = createRecorder(store, { sessionKey: 's' });
    for (let i = 1; i <= 3; i++) rec.onFrame(frame(i));
    store.close();
    const again = openStore({ home });
    expect(again.wire.count('s')).toBe(3);
    again.close();
  });

  it('session.closed commits at once; a throwing onFlush is logged, never thrown at the caller', () => {
    const store = freshStore();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const logged: string[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (m: string) => logged.push(m) };
    const rec = createRecorder(store, {
      sessionKey: 's',
      logger,
      onFlush: () => {
        throw new Error('listener bug');
      },
    });
    rec.onFrame(frame(1));
    expect(() => rec.onEvent(ev('session.closed', { reason: 'bye' }))).not.toThrow();
    expect(store.wire.count('s')).toBe(1);
    expect(logged).toEqual(['store: recorder callback threw']);
  });

  it('stores secret-bearing frames masked (mcpServers env, terminal/create env), the others as they are', async () => {
    const t = setup();
    const secret = 'sk-recorded-secret';
    const flushed = t.nextFlush();
    const tapped = (t_ms: number, dir: Frame['dir'], msg: Frame['msg']): Frame => ({
      t_ms,
      dir,
      msg,
      raw: JSON.stringify(msg),
    });
    t.rec.onFrame(
      tapped(1, 'client->agent', {
        jsonrpc: '2.0',
        id: 1,
        method: 'session/new',
        params: {
          cwd: '/w',
          mcpServers: [{ name: 'm', command: 'c', args: [], env: [{ name: 'TOKEN', value: secret }] }],
        },
      }),
    );
    t.rec.onFrame(
      tapped(2, 'agent->client', {
        jsonrpc: '2.0',
        id: 7,
        method: 'terminal/create',
        params: { sessionId: 'a', command: 'x', env: [{ name: 'K', value: secret }] },
      }),
    );
    t.rec.onFrame(frame(3));
    await flushed;
    const rows = t.other.wire.rows('s');
    expect(rows.map((r) => r.msg).join('\n')).not.toContain(secret);
    expect(JSON.parse(rows[0]!.msg).params.mcpServers[0].env).toEqual([{ name: 'TOKEN', value: '[redacted]' }]);
    expect(JSON.parse(rows[1]!.msg).params.env).toEqual([{ name: 'K', value: '[redacted]' }]);
    expect(rows[2]!.msg).toBe(frame(3).raw);
    t.done();
  });

  it('a stream never checkpoints inside its commits; the recorder checkpoints the WAL once idle', async () => {
    const home = tempHome('rec-ckpt');
    const store = openStore({ home });
    try {
      store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
      const rec = createRecorder(store, { sessionKey: 's', idleCheckpointMs: 20 });
      const dbBytes = (): number => statSync(join(home, 'talaria.db')).size;
      const before = dbBytes();
      // 6 MiB of frames in one synchronous stretch (commits every maxBatch frames): past SQLite's
      // default autocheckpoint (1000 pages, 4 MiB), which copied the WAL inside a commit.
      const pad = 'x'.repeat(4096);
      for (let i = 1; i <= 1536; i++) {
        const m = { jsonrpc: '2.0', method: 'session/update', params: { n: i, pad } };
        rec.onFrame({ t_ms: i, dir: 'agent->client', msg: m, raw: JSON.stringify(m) });
      }
      rec.onEvent(ev('turn.ended', { turnId: 't', stopReason: 'end_turn', durationMs: 1 }, 'x'));
      expect(store.wire.count('s')).toBe(1536);
      expect(dbBytes() - before).toBeLessThan(1 << 20); // still in the WAL
      await vi.waitFor(() => expect(dbBytes() - before).toBeGreaterThan(6 << 20), { timeout: 10_000, interval: 20 });
      rec.close();
    } finally {
      store.close();
    }
  });

  it('an unknown session is not_found', () => {
    const store = freshStore();
    expect(() => createRecorder(store, { sessionKey: 'nope' })).toThrow(StoreError);
  });

  it('a batch that cannot be written is reported, not thrown at the transport; recording goes on', () => {
    const errors: Error[] = [];
    const store = freshStore();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const rec: Recorder = createRecorder(store, { sessionKey: 's', thread: false, onError: (e) => errors.push(e) });
    rec.onFrame(frame(1));
    rec.flush();
    // The session row vanishes behind the recorder's back: the next batch violates the foreign key.
    rawDb(store).pragma('foreign_keys = OFF');
    rawDb(store).prepare('DELETE FROM sessions').run();
    rawDb(store).pragma('foreign_keys = ON');
    rec.onFrame(frame(2));
    expect(() => rec.flush()).not.toThrow();
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/FOREIGN KEY/)]);
    expect(rec.pendingFrames).toBe(0);
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    rec.onFrame(frame(3));
    rec.flush();
    // Seqs come from the disk, so the lost frame leaves no gap; it is counted instead.
    expect(store.wire.rows('s').map((r) => r.seq)).toEqual([1, 2]);
    expect(rec.lastSeq).toBe(2);
    expect(rec.lostFrames).toBe(1);
    expect(rec.error?.message).toMatch(/FOREIGN KEY/);
  });

  it("a damaged file: each lost batch is reported as the store's error (its path, the fix) and logged once, not once per batch", () => {
    const home = tempHome('rec-corrupt');
    const first = openStore({ home });
    first.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    first.close();
    corruptTable(join(home, 'talaria.db'), 'wire_blocks');
    const store = openStore({ home });
    const errors: Error[] = [];
    const logged: string[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (m: string) => void logged.push(m) };
    const rec = createRecorder(store, { sessionKey: 's', thread: false, logger, onError: (e) => errors.push(e) });
    for (let i = 1; i <= 5; i++) {
      rec.onFrame(frame(i));
      rec.flush();
    }
    expect(rec.lostFrames).toBe(5);
    expect(errors).toHaveLength(5);
    for (const e of errors)
      expect(e).toMatchObject({ name: 'StoreError', code: 'store_corrupt', details: { path: store.path } });
    expect(errors[0]!.message).toContain(`mv ${JSON.stringify(store.path)}`);
    expect(logged).toEqual([expect.stringMatching(/^store: recorder batch lost/)]);
    rec.close();
    store.close();
  });

  it('closing the store flushes the recorder; what arrives after is reported as lost (code closed), once', () => {
    const errors: Error[] = [];
    const store = freshStore();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const rec = createRecorder(store, { sessionKey: 's', thread: false, onError: (e) => errors.push(e) });
    rec.onFrame(frame(1));
    store.close();
    rec.onFrame(frame(2));
    rec.onFrame(frame(3));
    rec.onEvent(ev('turn.ended', { turnId: 't', stopReason: 'end_turn', durationMs: 1 }, 'agent-9'));
    rec.flush();
    expect(errors).toHaveLength(1);
    expect((errors[0] as StoreError).code).toBe('closed');
    expect(rec.lostFrames).toBe(2);
    expect(rec.lastSeq).toBe(1);
  });
});

describe('recorder on a live session (real agent process)', () => {
  it('stores every frame in wire order, the thread, turns and permission audit as they happen', async () => {
    const home = tempHome('rec-live');
    const store = openStore({ home });
    const stored = store.sessions.create({ provider: 'sdk-fake', cwd: '/' });
    const rec = createRecorder(store, { sessionKey: stored.id });
    const { client, frames, cwd } = await spawnFake({
      onFrame: rec.onFrame,
      onPermissionDecision: rec.onPermissionDecision,
      permission: { mode: 'ask', rules: [{ decision: 'allow', toolKind: 'edit' }] },
    });
    try {
      const session = await client.newSession({ cwd });
      store.sessions.update(stored.id, { agentSessionId: session.id });
      session.subscribe(rec.onEvent);
      for (const p of ['tools', `perm ${join(cwd, 'out.txt')}`, 'flood 300']) {
        const r = await session.prompt(p).result;
        expect(r.error).toBeUndefined();
        // turn.ended committed synchronously: by the time the result is in, it is on disk.
        expect(store.turns.list(stored.id).at(-1)).toMatchObject({ turnId: r.turnId, stopReason: 'end_turn' });
      }
      rec.flush();
      expect(store.wire.read(stored.id)).toEqual(JSON.parse(JSON.stringify(frames.map(({ raw: _raw, ...l }) => l))));
      expect(store.wire.rows(stored.id).map((r) => r.msg)).toEqual(frames.map((f) => f.raw));
      expect(store.entries.list(stored.id)).toEqual(JSON.parse(JSON.stringify(session.thread.entries)));
      const loaded = store.entries.loadSnapshot(stored.id)!;
      expect(toMarkdown(threadFromSnapshot(loaded))).toBe(toMarkdown(session.thread));
      expect(loaded.context).toEqual(snapshot(session.thread).context);
      expect(store.turns.list(stored.id).map((t) => t.stopReason)).toEqual(['end_turn', 'end_turn', 'end_turn']);
      expect(store.turns.list(stored.id)[0]!.usage).toMatchObject({ inputTokens: 10 });
      const audit = store.permissions.listAudit(stored.id);
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({
        decidedBy: 'policy',
        agentSessionId: session.id,
        toolCallId: 'edit-1',
        outcome: { outcome: 'selected' },
      });
      expect(audit[0]!.subject).toMatchObject({ toolKind: 'edit' });
    } finally {
      await client.close();
      store.close();
    }
  });
});
