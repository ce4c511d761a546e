import { describe, it, expect } from 'vitest';
import {
  SESSION_EVENTS,
  SESSION_STATES,
  TRANSITIONS,
  canTransition,
  transition,
  type SessionEvent,
  type SessionState,
} from '../../src/session/state.js';
import { TalariaError } from '../../src/protocol/errors.js';

// The expected machine, written out independently of TRANSITIONS ('x' = invalid_state).
type Cell = SessionState | 'x';
const EXPECTED: Record<SessionState, Record<SessionEvent, Cell>> = {
  //          prompt     turn_end  cancel        fail      close     recover
  idle: { prompt: 'running', turn_end: 'x', cancel: 'idle', fail: 'failed', close: 'closed', recover: 'x' },
  running: { prompt: 'x', turn_end: 'idle', cancel: 'cancelling', fail: 'failed', close: 'closed', recover: 'x' },
  cancelling: { prompt: 'x', turn_end: 'idle', cancel: 'cancelling', fail: 'failed', close: 'closed', recover: 'x' },
  failed: { prompt: 'x', turn_end: 'x', cancel: 'x', fail: 'failed', close: 'closed', recover: 'idle' },
  closed: { prompt: 'x', turn_end: 'x', cancel: 'x', fail: 'x', close: 'closed', recover: 'x' },
};

const pairs = SESSION_STATES.flatMap((s) => SESSION_EVENTS.map((e) => [s, e, EXPECTED[s][e]] as const));

describe('session state machine', () => {
  it('covers every state and event', () => {
    expect(pairs).toHaveLength(30);
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...SESSION_STATES].sort());
  });

  it.each(pairs)('%s + %s → %s', (state, event, expected) => {
    if (expected === 'x') {
      expect(canTransition(state, event)).toBe(false);
      let err: unknown;
      try {
        transition(state, event);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(TalariaError);
      expect((err as TalariaError).code).toBe('invalid_state');
      expect((err as TalariaError).details).toEqual({ from: state, event });
    } else {
      expect(canTransition(state, event)).toBe(true);
      expect(transition(state, event)).toBe(expected);
    }
  });

  it('runs a whole life: turn, cancelled turn, crash, recovery, close', () => {
    const events: SessionEvent[] = [
      'prompt',
      'turn_end',
      'prompt',
      'cancel',
      'cancel',
      'turn_end',
      'cancel',
      'prompt',
      'fail',
      'recover',
      'close',
      'close',
    ];
    const seen: SessionState[] = [];
    let s: SessionState = 'idle';
    for (const e of events) seen.push((s = transition(s, e)));
    expect(seen).toEqual([
      'running',
      'idle',
      'running',
      'cancelling',
      'cancelling',
      'idle',
      'idle',
      'running',
      'failed',
      'idle',
      'closed',
      'closed',
    ]);
  });

  it('nothing leaves closed', () => {
    for (const e of SESSION_EVENTS) {
      if (e === 'close') expect(transition('closed', e)).toBe('closed');
      else expect(() => transition('closed', e)).toThrow(/cannot .* while closed/);
    }
  });
});
