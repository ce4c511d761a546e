/** A loaded session's replay gets back the failure notices only Talaria knew (kept-notices.ts). */
import { describe, expect, it } from 'vitest';
import { withKeptNotices } from '../../src/thread/kept-notices.js';
import type { Entry } from '../../src/thread/types.js';

const user = (id: string, text: string): Entry => ({ id, kind: 'user_message', text, blocks: [] });
const agent = (id: string, text: string): Entry => ({ id, kind: 'assistant_message', text, blocks: [] });
const failed = (id: string, text: string): Entry => ({
  id,
  turnId: 't',
  kind: 'notice',
  level: 'error',
  code: 'turn_failed',
  text,
});
const info = (id: string): Entry => ({ id, kind: 'notice', level: 'info', code: 'steered', text: 'steered' });
const shape = (es: readonly Entry[]) => es.map((e) => `${e.kind}:${'text' in e ? e.text : ''}:${e.id}`);

describe('withKeptNotices', () => {
  it('puts a stored turn_failed notice after the same user message, before the next one, with no id or turn', () => {
    const stored = [
      user('e0', 'a'),
      agent('e1', 'x'),
      failed('e2', 'boom'),
      info('e3'),
      user('e4', 'b'),
      agent('e5', 'y'),
    ];
    const live = [user('e0', 'a'), agent('e1', 'x'), user('e2', 'b'), agent('e3', 'y')];
    const out = withKeptNotices(live, stored);
    expect(shape(out)).toEqual([
      'user_message:a:e0',
      'assistant_message:x:e1',
      'notice:boom:',
      'user_message:b:e2',
      'assistant_message:y:e3',
    ]);
    expect(out[2]).not.toHaveProperty('turnId');
  });

  it('at the end when the replay lacks the failed message; the live array itself when nothing is missing', () => {
    const stored = [user('e0', 'a'), agent('e1', 'x'), user('e2', 'fail'), failed('e3', 'boom')];
    const live = [user('e0', 'a'), agent('e1', 'x')];
    expect(shape(withKeptNotices(live, stored))).toEqual([
      'user_message:a:e0',
      'assistant_message:x:e1',
      'notice:boom:',
    ]);
    const already = [...live, failed('e2', 'boom')];
    expect(withKeptNotices(already, stored)).toBe(already);
    expect(withKeptNotices(live, [user('e0', 'a'), info('e1')])).toBe(live);
  });
});
