import { describe, expect, it } from 'vitest';
import { splitBlocks } from '../../web/src/entries/blocks.js';

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
});
