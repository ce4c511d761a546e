/**
 * Session lifecycle as a pure transition table. Queued prompts are not a state: while a turn
 * runs the session queues them itself and sends `prompt` again after `turn_end`.
 */
import { TalariaError } from '../protocol/errors.js';

export type SessionState = 'idle' | 'running' | 'cancelling' | 'closed' | 'failed';
export type SessionEvent = 'prompt' | 'turn_end' | 'cancel' | 'fail' | 'close' | 'recover';

export const SESSION_STATES = [
  'idle',
  'running',
  'cancelling',
  'closed',
  'failed',
] as const satisfies readonly SessionState[];
export const SESSION_EVENTS = [
  'prompt',
  'turn_end',
  'cancel',
  'fail',
  'close',
  'recover',
] as const satisfies readonly SessionEvent[];

/** Allowed transitions; a missing (state, event) pair is invalid. */
export const TRANSITIONS: Readonly<Record<SessionState, Readonly<Partial<Record<SessionEvent, SessionState>>>>> = {
  idle: {
    prompt: 'running',
    cancel: 'idle', // nothing to cancel: a no-op, not an error (a late or double click)
    fail: 'failed',
    close: 'closed',
  },
  running: {
    turn_end: 'idle',
    cancel: 'cancelling',
    fail: 'failed',
    close: 'closed',
  },
  cancelling: {
    turn_end: 'idle', // the prompt answered (`cancelled`, or it had already finished)
    cancel: 'cancelling', // already cancelling: idempotent
    fail: 'failed',
    close: 'closed',
  },
  failed: {
    fail: 'failed',
    recover: 'idle', // after a respawn + reload
    close: 'closed',
  },
  closed: {
    close: 'closed', // closing twice is harmless; nothing else leaves closed
  },
};

export function canTransition(state: SessionState, event: SessionEvent): boolean {
  return TRANSITIONS[state][event] !== undefined;
}

export function transition(state: SessionState, event: SessionEvent): SessionState {
  const next = TRANSITIONS[state][event];
  if (next === undefined) {
    throw new TalariaError('invalid_state', `cannot ${event} while ${state}`, { from: state, event });
  }
  return next;
}
