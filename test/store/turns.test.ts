import { describe, it, expect } from 'vitest';
import { BACKENDS } from './backends.js';

describe.each(BACKENDS)('turns ($name)', (backend) => {
  it('start then end fills one row with stop reason, usage, error and timings', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const row = store.turns.start('s', { turnId: 'turn-1', prompt: [{ type: 'text', text: 'hi' }], startedAt: 100 });
    store.turns.end('s', {
      turnId: 'turn-1',
      stopReason: 'end_turn',
      usage: { inputTokens: 3, outputTokens: 4 },
      endedAt: 350,
      durationMs: 250,
    });
    expect(store.turns.list('s')).toEqual([
      {
        rowId: row,
        sessionId: 's',
        turnId: 'turn-1',
        prompt: [{ type: 'text', text: 'hi' }],
        stopReason: 'end_turn',
        usage: { inputTokens: 3, outputTokens: 4 },
        startedAt: 100,
        endedAt: 350,
        durationMs: 250,
      },
    ]);
    expect(store.turns.get(row)?.turnId).toBe('turn-1');
  });

  it('a turn id reused after a restart gets its own row; the newest open one ends', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    store.turns.start('s', { turnId: 'turn-1', startedAt: 1 });
    store.turns.end('s', { turnId: 'turn-1', stopReason: 'end_turn', endedAt: 2, durationMs: 1 });
    store.turns.start('s', { turnId: 'turn-1', startedAt: 10 });
    store.turns.end('s', {
      turnId: 'turn-1',
      stopReason: 'error',
      error: { code: 'agent_error', message: 'x' },
      endedAt: 15,
      durationMs: 5,
    });
    const turns = store.turns.list('s');
    expect(turns.map((t) => [t.turnId, t.stopReason, t.startedAt, t.endedAt])).toEqual([
      ['turn-1', 'end_turn', 1, 2],
      ['turn-1', 'error', 10, 15],
    ]);
    expect(turns[1]!.error).toEqual({ code: 'agent_error', message: 'x' });
  });

  it('an end with no recorded start (dropped queued turn) gets a row of its own', () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    store.turns.end('s', { turnId: 'turn-3', stopReason: 'cancelled', endedAt: 500, durationMs: 0 });
    expect(store.turns.list('s')).toMatchObject([
      { turnId: 'turn-3', stopReason: 'cancelled', startedAt: 500, endedAt: 500, durationMs: 0 },
    ]);
    expect(store.turns.list('s')[0]!.prompt).toBeUndefined();
  });

  it("last: the session's newest row (open or ended) with its error, without prompt and usage; other sessions' rows do not count", () => {
    const store = backend.fresh();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    store.sessions.create({ id: 'o', provider: 'p', cwd: '/' });
    expect(store.turns.last('s')).toBeUndefined();
    store.turns.start('s', { turnId: 'turn-1', prompt: [{ type: 'text', text: 'hi' }], startedAt: 1 });
    store.turns.end('s', {
      turnId: 'turn-1',
      stopReason: 'error',
      usage: { inputTokens: 1 },
      error: { code: 'agent_error', message: 'x' },
      endedAt: 2,
      durationMs: 1,
    });
    store.turns.start('o', { turnId: 'turn-9', startedAt: 3 });
    expect(store.turns.last('s')).toEqual({
      rowId: 1,
      sessionId: 's',
      turnId: 'turn-1',
      stopReason: 'error',
      error: { code: 'agent_error', message: 'x' },
      startedAt: 1,
      endedAt: 2,
      durationMs: 1,
    });
    store.turns.start('s', { turnId: 'turn-2', startedAt: 4 });
    expect(store.turns.last('s')).toMatchObject({ turnId: 'turn-2', startedAt: 4 });
    expect(store.turns.last('s')?.endedAt).toBeUndefined();
  });
});
