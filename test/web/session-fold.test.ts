/**
 * One fold of a session's stream (src/server/client/thread.ts): the web's session store folds
 * with it too, so for any sequence of events its snapshot is the fold's; what it draws after
 * the events is what it draws from a snapshot taken there (a reload draws the live page); and a
 * view it handed out never changes after (the fold replaces what it changes).
 */
import { describe, expect, it } from 'vitest';
import { applyEvent } from '../../src/server/client/thread.js';
import type { SessionSnapshot, StreamEvent, StreamEventName } from '../../src/server/contract/index.js';
import { SessionStore } from '../../web/src/state/session-store.js';
import type { SessionView } from '../../web/src/state/session-view.js';

const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const ID = 's1';

/** The store's views are handed out FLUSH_MS apart: wait out the next one. */
const settled = (store: SessionStore): Promise<SessionView> => new Promise((r) => setTimeout(() => r(store.get()), 80));

/**
 * A view without what only this browser knows (who answered, how the last turn stopped, where it
 * saw a plan made outside a turn: kept in localStorage, which Node has not) or counts.
 */
function drawn(v: SessionView): unknown {
  const { version: _v, resolved: _r, lastStop: _l, planAt: _p, summary: _s, ...rest } = v;
  return plain(rest);
}

const base = (): SessionSnapshot => ({
  session: {
    id: ID,
    provider: 'demo',
    cwd: '/w',
    archived: false,
    stored: true,
    live: true,
    state: 'idle',
    needsAttention: false,
  },
  seq: 1,
  thread: { entries: [], plan: null, availableCommands: [], context: {} },
  origin: 'new',
  pending: [],
  queue: [],
  catalog: {
    others: [],
    model: { kind: 'model', currentId: 'm1', options: [{ id: 'm1' }, { id: 'm2' }] },
    mode: { kind: 'mode', currentId: 'ask', options: [{ id: 'ask' }, { id: 'auto' }] },
  },
  usage: {},
});

type Body = Record<string, unknown>;
const user = (i: number, turnId: string): Body => ({ id: `u${i}`, kind: 'user_message', turnId, text: `go ${i}` });
const answer = (i: number, turnId: string): Body => ({ id: `a${i}`, kind: 'assistant_message', turnId, text: 'Hel' });

/**
 * Bodies of every event type the stream carries (the index signature fails to compile when a
 * type is added and not given one here). Each is a function of a step `i`, so a run varies.
 */
const SAMPLES: { [K in StreamEventName]: (i: number) => Body } = {
  'session.state': (i) => ({ state: i % 2 ? 'running' : 'idle', previous: 'idle' }),
  'session.closed': () => ({ reason: 'closed' }),
  'turn.queued': (i) => ({ turnId: `q${i}`, position: 1 }),
  'turn.started': (i) => ({ turnId: `t${i}`, prompt: [{ type: 'text', text: 'go' }] }),
  'turn.ended': (i) => ({
    turnId: `t${i}`,
    stopReason: i % 3 ? 'end_turn' : 'error',
    durationMs: 5,
    ...(i % 2 ? { usage: { inputTokens: i, outputTokens: 2 * i, totalTokens: 3 * i } } : {}),
    ...(i % 3 ? {} : { error: { code: 'agent_error', message: 'no' } }),
  }),
  'entry.added': (i) => ({ index: i % 5, entry: i % 2 ? user(i, `t${i}`) : answer(i, `t${i}`) }),
  'entry.updated': (i) => ({ index: i % 5, entry: { ...answer(i, `t${i}`), text: `Hello ${i}` } }),
  'plan.updated': (i) => ({
    plan: i % 4 ? [{ content: `step ${i}`, status: 'pending' }] : null,
    ...(i % 2 ? { turnId: `t${i - 2}` } : {}),
  }),
  'commands.updated': (i) => ({ commands: [{ name: `/c${i}`, description: 'd' }] }),
  'mode.updated': (i) => ({ modeId: i % 2 ? 'auto' : 'ask' }),
  'config.updated': (i) => ({ configOptions: [{ id: 'mode', value: i }] }),
  'info.updated': (i) => ({
    ...(i % 3 ? { title: `title ${i}` } : {}),
    ...(i % 2 ? { updatedAt: `2026-01-0${(i % 9) + 1}` } : {}),
    ...(i % 4 === 1 ? { meta: { hermes: { sessionProvenance: { root: 'r' } } } } : {}),
  }),
  'context.updated': (i) => ({ context: { used: i * 100, size: 128_000 } }),
  'catalog.updated': (i) => ({
    catalog: {
      others: [],
      model: { kind: 'model', currentId: i % 2 ? 'm2' : 'm1', options: [{ id: 'm1' }, { id: 'm2' }] },
    },
  }),
  'permission.asked': (i) => ({
    requestKey: `r${i % 3}`,
    toolCallId: `tc${i}`,
    options: [{ optionId: 'allow', kind: 'allow_once', name: 'Allow' }],
    subject: { paths: [], roots: [] },
    ...(i % 2 ? { title: `Write ${i}` } : {}),
  }),
  'permission.decided': (i) => ({
    requestKey: `r${i % 3}`,
    toolCallId: `tc${i}`,
    outcome: { outcome: 'selected', optionId: 'allow' },
    decidedBy: 'user',
    reason: 'asked',
  }),
  'permission.resolved': (i) => ({
    requestKey: `r${i % 3}`,
    toolCallId: `tc${i}`,
    outcome: { outcome: 'selected', optionId: 'allow' },
    decidedBy: 'user',
    ...(i % 2 ? { answeredBy: 'alice' } : {}),
  }),
  'protocol.error': () => ({ kind: 'parse', preview: '{', bytes: 1 }),
  'entry.appended': (i) => ({ index: i % 5, text: ` chunk ${i}` }),
  'queue.updated': (i) => ({
    queue: i % 2 ? [{ id: `p${i}`, text: 'next', images: 0, position: 1, queuedAt: i }] : [],
  }),
  'session.live': (i) => ({ origin: i % 2 ? 'resumed' : 'loaded', provider: 'demo' }),
  'choice.updated': (i) => (i % 2 ? { modelId: 'm2' } : { modeId: 'auto' }),
  attention: () => ({ kind: 'turn.ended', text: 'Turn ended' }),
  'recording.delayed': (i) => ({ frames: i, bytes: 100 * i, since: 1000 + i, error: 'database is locked' }),
  'recording.caught_up': (i) => ({ frames: i, outageMs: 10 * i }),
  'recording.failed': (i) => ({ code: 'recording_failed', message: `gave up at ${i}` }),
};
const TYPES = Object.keys(SAMPLES) as StreamEventName[];

/** A deterministic run of `n` events from seq 2 (after base()), every type in it; appends weighted like a stream. */
function generated(seed: number, n: number): StreamEvent[] {
  let x = seed;
  const rnd = (k: number): number => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % k);
  const out: StreamEvent[] = [];
  for (let i = 0; i < n; i++) {
    const type: StreamEventName =
      i < TYPES.length ? TYPES[i]! : rnd(3) === 0 ? 'entry.appended' : TYPES[rnd(TYPES.length)]!;
    out.push({ ...SAMPLES[type](i), type, sessionId: ID, seq: i + 2, at: i } as unknown as StreamEvent);
  }
  return out;
}

describe('web: the session store folds with the one fold', () => {
  it("for generated runs of every event type, the store's snapshot is the fold's, and it draws what a reload at the end draws", async () => {
    for (const seed of [1, 7, 42, 1234]) {
      const events = generated(seed, 400);
      const folded = base();
      for (const e of events) applyEvent(folded, e);
      const store = new SessionStore(ID);
      store.applySnapshot(base());
      for (const e of events) store.applyEvent(e);
      // Twice over: the seqs it has are not folded again.
      for (const e of events.slice(-50)) store.applyEvent(e);
      expect(plain(store.snapshot())).toEqual(plain(folded));
      const live = await settled(store);
      const reload = new SessionStore(ID);
      reload.applySnapshot(plain(folded));
      expect(drawn(live)).toEqual(drawn(await settled(reload)));
    }
  });

  it('a view handed out never changes while later events fold in', async () => {
    const events = generated(5, 300);
    const store = new SessionStore(ID);
    store.applySnapshot(base());
    const views: { view: SessionView; json: string }[] = [];
    for (const [i, e] of events.entries()) {
      store.applyEvent(e);
      if (i % 60 === 59) {
        const view = await settled(store);
        views.push({ view, json: JSON.stringify(drawn(view)) });
      }
    }
    for (const { view, json } of views) expect(JSON.stringify(drawn(view))).toBe(json);
    expect(new Set(views.map((v) => v.view)).size).toBe(views.length);
  });

  it('the fold keeps what the server keeps: the plan’s turn, the agent’s meta, usage summed as the store sums it, a cleared title', () => {
    const s = base();
    const ev = (seq: number, type: StreamEventName, body: Body) =>
      applyEvent(s, { ...body, type, sessionId: ID, seq, at: 0 } as unknown as StreamEvent);
    ev(2, 'plan.updated', { plan: [{ content: 'a', status: 'pending' }], turnId: 't1' });
    expect(s.thread.planTurnId).toBe('t1');
    ev(3, 'info.updated', { title: 'T', meta: { x: 1 } });
    expect(s.thread).toMatchObject({ title: 'T', meta: { x: 1 } });
    ev(4, 'turn.ended', {
      turnId: 't1',
      stopReason: 'end_turn',
      durationMs: 1,
      usage: { inputTokens: 2, outputTokens: 3 },
    });
    ev(5, 'turn.ended', { turnId: 't2', stopReason: 'end_turn', durationMs: 1, usage: { inputTokens: 1 } });
    expect(s.usage).toEqual({ inputTokens: 3, outputTokens: 3 });
    expect(s.turnUsage).toEqual({ inputTokens: 1 });
    ev(6, 'turn.ended', { turnId: 't3', stopReason: 'end_turn', durationMs: 1 });
    expect(s.turnUsage).toBeUndefined();
    ev(7, 'info.updated', {});
    expect(s.thread.title).toBeUndefined();
    expect(s.thread.meta).toEqual({ x: 1 });
    ev(8, 'choice.updated', { modeId: 'auto' });
    ev(9, 'session.live', { origin: 'resumed', provider: 'demo' });
    expect(s).toMatchObject({ seq: 9, origin: 'resumed', session: { modeId: 'auto' } });
    // Already folded: left alone (seq does not move back).
    expect(ev(3, 'info.updated', { title: 'old' })).toBe(false);
    expect(s.seq).toBe(9);
  });

  it('recording trouble is state: delayed until caught up, a failure stays (the first one)', () => {
    const s = base();
    const ev = (seq: number, type: StreamEventName, body: Body) =>
      applyEvent(s, { ...body, type, sessionId: ID, seq, at: 0 } as unknown as StreamEvent);
    ev(2, 'recording.delayed', { frames: 3, bytes: 300, since: 1000, error: 'database is locked' });
    expect(s.recording).toEqual({ delayed: { frames: 3, bytes: 300, since: 1000, error: 'database is locked' } });
    ev(3, 'recording.delayed', { frames: 9, bytes: 900, since: 1000, error: 'database is locked' });
    expect(s.recording?.delayed?.frames).toBe(9);
    ev(4, 'recording.caught_up', { frames: 9, outageMs: 50 });
    expect(s.recording).toBeUndefined();
    ev(5, 'recording.delayed', { frames: 1, bytes: 10, since: 2000, error: 'busy' });
    ev(6, 'recording.failed', { code: 'recording_failed', message: 'first' });
    ev(7, 'recording.failed', { code: 'recording_failed', message: 'second' });
    ev(8, 'recording.caught_up', { frames: 1, outageMs: 5 });
    expect(s.recording).toEqual({ failed: { code: 'recording_failed', message: 'first' } });
  });
});
