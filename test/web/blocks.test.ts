import { describe, expect, it } from 'vitest';
import { blockSplitter, splitBlocks } from '../../web/src/entries/blocks.js';

describe('web: markdown blocks for streaming', () => {
  it('splits at blank lines, keeps fenced code whole (blank lines inside included), loses no text', () => {
    const t = 'a para\nline2\n\n```ts\nx\n\ny\n```\n\nend';
    const b = splitBlocks(t);
    expect(b.map((x) => x.text)).toEqual(['a para\nline2', '```ts\nx\n\ny\n```', 'end']);
  });

  it('cuts a long paragraph at sentence ends into continuation pieces, losing nothing', () => {
    const t = 'Sentence number one. '.repeat(1000);
    const b = splitBlocks(t);
    expect(b.length).toBeGreaterThan(3);
    expect(b[0]!.cont).toBe(false);
    expect(b.slice(1).every((x) => x.cont)).toBe(true);
    expect(b.every((x) => x.text.length <= 4000)).toBe(true);
    expect(b.map((x) => x.text).join('')).toBe(t);
  });

  it('a streaming message split as it grows gives what a whole split gives, at every step, and keeps earlier blocks', () => {
    // Pieces that open and close fences, blank lines, long paragraphs and partial lines, cut anywhere.
    const parts = ['Intro line', ' goes on.\n', '\n', '``', '`ts\nconst a = 1;\n\n', 'b();\n``', '`\n\nNext ', 'para. '.repeat(900), '\n   ', 'x\n\n', 'tail'];
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const all = parts.join('');
    for (let round = 0; round < 20; round++) {
      const split = blockSplitter();
      let at = 0;
      let before = split('');
      while (at < all.length) {
        at = Math.min(all.length, at + 1 + rnd(round % 2 ? 40 : 3000));
        const text = all.slice(0, at);
        const got = split(text);
        const plain = (bs: { text: string; cont: boolean }[]) => bs.map(({ text: t, cont }) => ({ text: t, cont }));
        expect(plain(got)).toEqual(plain(splitBlocks(text)));
        // Blocks that were complete before (all but the last paragraph) are the same objects.
        if (before.length > 2) expect(got[0]).toBe(before[0]);
        // Within a long paragraph, the pieces cut before are kept too.
        if (before.length > 3 && got.length >= before.length) expect(got[before.length - 2]).toBe(before[before.length - 2]);
        before = got;
      }
    }
  });
});
