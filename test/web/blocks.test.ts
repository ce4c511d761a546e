import { describe, expect, it } from 'vitest';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { BlockStream, blockSplitter, pieceSource, splitBlocks } from '../../web/src/entries/blocks.js';

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
    expect(b.every((x) => x.text.length <= 1200)).toBe(true);
    expect(b.map((x) => x.text).join('')).toBe(t);
  });

  it('a streaming message split as it grows gives what a whole split gives, at every step, and keeps earlier blocks', () => {
    // Pieces that open and close fences, blank lines, long paragraphs and partial lines, cut anywhere.
    const parts = [
      'Intro line',
      ' goes on.\n',
      '\n',
      '``',
      '`ts\nconst a = 1;\n\n',
      'b();\n``',
      '`\n\nNext ',
      'para. '.repeat(900),
      '\n   ',
      'x\n\n',
      'tail',
    ];
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
        if (before.length > 3 && got.length >= before.length)
          expect(got[before.length - 2]).toBe(before[before.length - 2]);
        before = got;
      }
    }
  });
  it('a stream fed in chunks gives what a whole split gives after every chunk (random text: fences, blank and space lines, long lines)', () => {
    let seed = 11;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const bits = [
      'word ',
      'End. ',
      '.',
      ' ',
      '\n',
      '\n\n',
      '   \n',
      '```',
      '~~~',
      '```ts\n',
      '  ```\n',
      '`',
      'Long sentence here. '.repeat(80),
      ' '.repeat(210),
      'x'.repeat(1300),
    ];
    for (let round = 0; round < 30; round++) {
      let all = '';
      while (all.length < 12_000) all += bits[rnd(bits.length)]!;
      const s = new BlockStream();
      let at = 0;
      while (at < all.length) {
        const next = Math.min(all.length, at + 1 + rnd(round % 3 === 0 ? 5 : 400));
        s.push(all.slice(at, next));
        at = next;
        const plain = (bs: { text: string; cont: boolean }[]) => bs.map(({ text: t, cont }) => ({ text: t, cont }));
        expect(plain(s.blocks())).toEqual(plain(splitBlocks(all.slice(0, at))));
      }
    }
  });

  it('a long streamed paragraph is held one piece at a time, not whole', () => {
    const s = new BlockStream();
    let all = '';
    for (let i = 1; i <= 5000; i++) {
      const c = `Chunk ${i} of 5000 from the slow demo. `;
      s.push(c);
      all += c;
    }
    expect(s.length).toBe(all.length);
    expect(s.held).toBeLessThan(8_000);
    expect(
      s
        .blocks()
        .map((b) => b.text)
        .join(''),
    ).toBe(all);
  });

  it('a piece cut mid-paragraph is text, even when it starts like a list item, a heading or a quote', () => {
    // A cut lands after "was 3. " in "… the total was 3. 1. Then …": mid-paragraph, "1. " is text.
    const t = `${'Word word word. '.repeat(74)}The total was 3. 1. Then this. End.`;
    const pieces = splitBlocks(t);
    expect(pieces.length).toBeGreaterThan(1);
    for (const start of [
      '1. Then',
      '2) Next',
      '- dash',
      '+ plus',
      '* star',
      '# Hash',
      '## Two',
      '> quoted',
      '   1. indented',
    ]) {
      const tree = fromMarkdown(pieceSource({ text: `${start} and more text.`, cont: true }));
      expect(
        tree.children.map((c) => c.type),
        start,
      ).toEqual(['paragraph']);
    }
    // A piece that opens its paragraph is its own markdown.
    expect(fromMarkdown(pieceSource({ text: '1. a list', cont: false })).children[0]!.type).toBe('list');
    // What a reader sees of a cut paragraph is its whole text.
    const seen = pieces.map((b) => toText(fromMarkdown(pieceSource(b)))).join(' ');
    expect(seen.replace(/\s+/g, ' ').trim()).toBe(t.replace(/\s+/g, ' ').trim());
  });
});

function toText(n: unknown): string {
  const node = n as { value?: string; children?: unknown[] };
  return typeof node.value === 'string' ? node.value : (node.children ?? []).map(toText).join('');
}
