import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { steerContext, userWords } from '../../src/thread/injected.js';
import { withContext } from '../../src/session/turns.js';
import { buildSeed } from '../../src/thread/seed.js';
import { createThread } from '../../src/thread/index.js';
import { ended, msg, run, started } from './builders.js';

/** The text an agent gets: Talaria's context in front of the user's words, as a turn sends it. */
const sent = (context: string, words: string) =>
  (withContext([{ type: 'text', text: words }], context)[0] as unknown as { text: string }).text;

describe("the user's words inside Talaria's context", () => {
  it('a resent steer: the correction after the wrapper, whatever the interrupted message and partial answer hold', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string({ minLength: 1 }), (ask, partial, words) => {
        const w = words.trim() || 'x';
        expect(userWords(sent(steerContext(ask, partial), w))).toEqual({ words: w, wrapper: 'steer' });
      }),
    );
    expect(userWords(sent(steerContext('slow', ''), 'typed correction'))).toEqual({
      words: 'typed correction',
      wrapper: 'steer',
    });
  });

  it('a seed: the new message after the transcript; a seed sent alone has no words of the user', () => {
    const t = createThread();
    run(t, started('1', 'one apple'), msg('noted: one apple'), ended('1'));
    const seed = buildSeed(t.entries, { reason: 'rewind', contextSize: 100_000 });
    expect(userWords(sent(seed.text, 'and a pear?'))).toEqual({ words: 'and a pear?', wrapper: 'seed' });
    expect(userWords(seed.text)).toEqual({ words: '', wrapper: 'seed' });
  });

  it("anything else is the user's as it is, a quote of the marks included", () => {
    for (const text of [
      'hello',
      '',
      'I typed [Talaria] The user interrupted your answer myself',
      '[Talaria] This conversation continues, said nobody',
    ]) {
      expect(userWords(text)).toEqual({ words: text });
    }
  });
});
