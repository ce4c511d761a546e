import { describe, expect, it } from 'vitest';
import { lineWriter } from '../../src/harness/acp/line-out.js';

describe('lineWriter', () => {
  it('writes the lines of one burst together, in order, each on its own line', async () => {
    const writes: string[] = [];
    const out = lineWriter((t) => writes.push(t.toString('utf8')));
    out('{"a":1}');
    out('{"b":2}');
    out('{"c":3}');
    expect(writes).toEqual([]);
    await Promise.resolve();
    expect(writes).toEqual(['{"a":1}\n{"b":2}\n{"c":3}\n']);
  });

  it('starts a new write for a later burst, and a lone line is not held past its burst', async () => {
    const writes: string[] = [];
    const out = lineWriter((t) => writes.push(t.toString('utf8')));
    out('one');
    await Promise.resolve();
    out('two');
    await Promise.resolve();
    expect(writes).toEqual(['one\n', 'two\n']);
  });

  it('encodes every line as UTF-8 exactly, whatever characters it holds (two-byte, astral, none)', async () => {
    const chunks: Buffer[] = [];
    const out = lineWriter((b) => chunks.push(b));
    const lines = ['{"t":"fix bug — ok"}', '{"t":"ascii"}', '{"t":"😀 ü 漢字"}', '', '{"t":"\\u2028"}'];
    for (const l of lines) out(l);
    await Promise.resolve();
    expect(chunks).toHaveLength(1);
    expect(Buffer.compare(chunks[0]!, Buffer.from(lines.join('\n') + '\n', 'utf8'))).toBe(0);
  });
});
