import { describe, it, expect } from 'vitest';
import { appended } from '../../src/server/hub.js';
import { createThread, reduce } from '../../src/thread/index.js';
import { msg, up } from '../thread/builders.js';

const entry = (text: string) => ({ id: 'e1', kind: 'assistant_message', text, blocks: [] });

describe('entry.appended: what a streamed chunk added', () => {
  it('the reducer names the text a chunk added, and nothing for a change that is not a pure append', () => {
    const t = createThread();
    reduce(t, msg('Hello'));
    expect(reduce(t, msg(', world'))).toEqual([
      { type: 'entry.updated', index: 0, entry: t.entries[0], appended: ', world' },
    ]);
    const image = reduce(
      t,
      up({ sessionUpdate: 'agent_message_chunk', content: { type: 'image', data: 'AA==', mimeType: 'image/png' } }),
    );
    expect(image).toHaveLength(1);
    expect(image[0]).not.toHaveProperty('appended');
  });

  it("the Hub takes the core's word for the added text when the lengths agree (it never compares the texts: that would copy the whole message per chunk)", () => {
    // Same length, other content: only the hint can say what was added, so a text comparison would refuse it.
    expect(appended(entry('abc'), entry('xyzd'), 'd')).toBe('d');
  });

  it('a hint that does not fit the lengths is ignored: the texts are compared as before', () => {
    expect(appended(entry('abc'), entry('abcde'), 'd')).toBe('de');
    expect(appended(entry('abc'), entry('xbcde'), 'd')).toBeUndefined();
    expect(appended(entry('abc'), entry('abcd'))).toBe('d');
  });

  it('any other field that changed makes it a full update, hint or not', () => {
    expect(appended(entry('abc'), { ...entry('abcd'), blocks: [{ type: 'text', text: 'x' }] }, 'd')).toBeUndefined();
    expect(appended(undefined, entry('abcd'), 'd')).toBeUndefined();
  });
});
