import { describe, expect, it } from 'vitest';
import { lineWriter } from '../../src/harness/acp/line-out.js';

describe('lineWriter', () => {
  it('writes the lines of one burst together, in order, each on its own line', async () => {
    const writes: string[] = [];
    const out = lineWriter((t) => writes.push(t));
    out('{"a":1}');
    out('{"b":2}');
    out('{"c":3}');
    expect(writes).toEqual([]);
    await Promise.resolve();
    expect(writes).toEqual(['{"a":1}\n{"b":2}\n{"c":3}\n']);
  });

  it('starts a new write for a later burst, and a lone line is not held past its burst', async () => {
    const writes: string[] = [];
    const out = lineWriter((t) => writes.push(t));
    out('one');
    await Promise.resolve();
    out('two');
    await Promise.resolve();
    expect(writes).toEqual(['one\n', 'two\n']);
  });
});
