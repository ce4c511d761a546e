/** The summary's `failure` from a turn's end and from the store (session-failure.ts). */
import { describe, expect, it } from 'vitest';
import { StoredFailures, storedFailure, turnFailure } from '../../src/server/session-failure.js';
import { noteTurnFailure } from '../../src/session/turn-failure.js';
import type { Entry } from '../../src/thread/types.js';
import { freshStore } from '../store/helpers.js';

describe('session failure', () => {
  it("a turn's end: its error (the agent's when the process went away), an error stop reason, or nothing", () => {
    expect(turnFailure('error', { code: 'agent_error', message: 'boom' })).toEqual({ cause: 'turn', message: 'boom' });
    for (const code of ['agent_crashed', 'connection_closed', 'spawn_failed'])
      expect(turnFailure('error', { code, message: 'gone' })).toEqual({ cause: 'agent', message: 'gone' });
    expect(turnFailure('error', undefined)).toEqual({ cause: 'turn', message: 'The turn ended with an error.' });
    expect(turnFailure('end_turn', undefined)).toBeUndefined();
    expect(turnFailure('cancelled', undefined)).toBeUndefined();
  });

  it("the store: the last turn's, once it ended; a turn that started since clears it", () => {
    const store = freshStore();
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    expect(storedFailure(store, 's')).toBeUndefined();
    store.turns.start('s', { turnId: 't1', startedAt: 1 });
    store.turns.end('s', {
      turnId: 't1',
      stopReason: 'error',
      error: { code: 'agent_crashed', message: 'died' },
      endedAt: 2,
      durationMs: 1,
    });
    expect(storedFailure(store, 's')).toEqual({ cause: 'agent', message: 'died' });
    store.turns.start('s', { turnId: 't2', startedAt: 3 });
    expect(storedFailure(store, 's')).toBeUndefined();
  });

  it('StoredFailures reads a session again only when its row changed (a turn start or end stamps it)', () => {
    let now = 10;
    const store = freshStore({ now: () => now });
    store.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const cache = new StoredFailures(store);
    store.turns.start('s', { turnId: 't1', startedAt: 1 });
    store.turns.end('s', {
      turnId: 't1',
      stopReason: 'error',
      error: { code: 'agent_error', message: 'boom' },
      endedAt: 2,
      durationMs: 1,
    });
    store.sessions.touch('s', 2);
    expect(cache.of(store.sessions.get('s')!)).toEqual({ cause: 'turn', message: 'boom' });
    // Unstamped writes are not seen (nothing reads the turns for an unchanged row)…
    store.turns.start('s', { turnId: 't2', startedAt: 3 });
    expect(cache.of(store.sessions.get('s')!)).toEqual({ cause: 'turn', message: 'boom' });
    // …the stamp that comes with them is.
    store.sessions.touch('s', 3);
    expect(cache.of(store.sessions.get('s')!)).toBeUndefined();
    now = 20;
    store.turns.end('s', {
      turnId: 't2',
      stopReason: 'error',
      error: { code: 'x', message: 'again' },
      endedAt: 4,
      durationMs: 1,
    });
    store.sessions.setTitle('s', 'renamed');
    expect(cache.of(store.sessions.get('s')!)).toEqual({ cause: 'turn', message: 'again' });
  });
});

describe('noteTurnFailure', () => {
  const target = (entries: Entry[]) => {
    const added: { code: string; text: string; data?: unknown }[] = [];
    return {
      thread: { entries },
      added,
      notice: (_l: 'error', code: string, text: string, data?: unknown) => void added.push({ code, text, data }),
    };
  };
  const user: Entry = { id: 'e0', turnId: 't1', kind: 'user_message', text: 'hi', blocks: [] };

  it('adds the error under its turn, worded by its cause; nothing for a good end, a turn that never ran, or one that said why', () => {
    const t = target([user, { id: 'e1', kind: 'assistant_message', text: 'working', blocks: [] }]);
    noteTurnFailure(t, 't1', 'error', { code: 'agent_crashed', message: 'agent exited with code 3' });
    noteTurnFailure(t, 't1', 'end_turn', undefined);
    noteTurnFailure(t, 't9', 'error', { code: 'agent_error', message: 'never ran' });
    expect(t.added).toEqual([
      {
        code: 'turn_failed',
        text: 'The agent stopped during this turn: agent exited with code 3',
        data: { turnId: 't1', cause: 'agent', code: 'agent_crashed' },
      },
    ]);
    const u = target([user]);
    noteTurnFailure(u, 't1', 'error', { code: 'agent_error', message: 'boom' });
    expect(u.added.map((a) => a.text)).toEqual(['The turn failed: boom']);
    const said = target([
      user,
      { id: 'e1', kind: 'notice', level: 'error', code: 'context_overflow', text: 'too long' },
    ]);
    noteTurnFailure(said, 't1', 'error', { code: 'context_overflow', message: 'too long' });
    expect(said.added).toEqual([]);
  });
});
