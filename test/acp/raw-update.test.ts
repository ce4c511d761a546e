import { describe, expect, it } from 'vitest';
import { rewriteUpdateLine, updateSpans } from '../../src/harness/acp/raw-update.js';

const T = 'talaria-1';
const QT = JSON.stringify(T);

/** The rewrite must mean what re-serializing would: the parsed line with the id swapped (and the insert). */
function meansSame(line: string, insert: Record<string, unknown> = {}): string {
  const out = rewriteUpdateLine(
    line,
    QT,
    Object.entries(insert)
      .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)},`)
      .join(''),
  );
  expect(out).toBeDefined();
  const want = JSON.parse(line) as { params: { sessionId: string; update: Record<string, unknown> } };
  want.params.sessionId = T;
  want.params.update = { ...insert, ...want.params.update };
  expect(JSON.parse(out!)).toEqual(want);
  return out!;
}

describe('rewriteUpdateLine', () => {
  it('swaps only the session id token and keeps every other byte', () => {
    const line =
      '{ "jsonrpc" : "2.0","method":"session/update", "params" : { "sessionId" : "a\\u0062c" ,\n"update":{"sessionUpdate":"x","text":"caf\\u00e9 \\"}{\\\\"}}}';
    expect(meansSame(line)).toBe(line.replace('"a\\u0062c"', '"talaria-1"'));
  });

  it('puts inserted members first in the update, in either member order', () => {
    expect(
      meansSame(
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk"}}}',
        { messageId: 'm' },
      ),
    ).toBe(
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"talaria-1","update":{"messageId":"m","sessionUpdate":"agent_message_chunk"}}}',
    );
    expect(
      meansSame(
        '{"params":{"update":{"sessionUpdate":"p","entries":[{"c":"]}"}]},"sessionId":"s"},"method":"session/update","jsonrpc":"2.0"}',
        { messageId: 'm' },
      ),
    ).toBe(
      '{"params":{"update":{"messageId":"m","sessionUpdate":"p","entries":[{"c":"]}"}]},"sessionId":"talaria-1"},"method":"session/update","jsonrpc":"2.0"}',
    );
  });

  it('skips nested values of every kind before and after the members it looks for', () => {
    meansSame(
      '{"jsonrpc":"2.0","x":[1,{"sessionId":"no"},"]"],"n":-1.5e3,"b":true,"z":null,"method":"session/update","params":{"_meta":{"sessionId":"inner"},"sessionId":"s","update":{"sessionUpdate":"u"},"k":[[]]}}',
    );
    meansSame(
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s\\\\","update":{"sessionUpdate":"u","t":"\\\\\\""}}}',
    );
  });

  it('answers undefined for shapes it cannot splice safely (the caller re-serializes)', () => {
    const bad = [
      '{"params":{"sessionId":"a","sessionId":"b","update":{"sessionUpdate":"u"}}}',
      '{"params":{"sessionId":"a","update":{"sessionUpdate":"u"},"update":{"sessionUpdate":"v"}}}',
      '{"params":{"sessionId":"a","update":{"sessionUpdate":"u"}},"params":{"sessionId":"a","update":{"sessionUpdate":"u"}}}',
      '{"params":{"session\\u0049d":"a","update":{"sessionUpdate":"u"}}}',
      '{"params":{"sessionId":"a","\\u0075pdate":{"sessionUpdate":"u"}}}',
      '{"params":{"sessionId":"a"}}',
      '{"params":{"update":{"sessionUpdate":"u"}}}',
      '{"params":{"sessionId":1,"update":{"sessionUpdate":"u"}}}',
      '{"params":{"sessionId":"a","update":[]}}',
      '{"params":[]}',
      '[]',
    ];
    for (const line of bad) expect(updateSpans(line), line).toBeUndefined();
  });
});

describe('the plain line (JSON.stringify order) without a scan', () => {
  const HEAD = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":';

  it('still refuses duplicates and escaped keys after the update', () => {
    for (const tail of [
      '"a","update":{"sessionUpdate":"u"},"sessionId":"b"}}',
      '"a","update":{"sessionUpdate":"u"},"session\\u0049d":"b"}}',
      '"a","update":{"sessionUpdate":"u"}},"params":{"sessionId":"b","update":{}}}',
    ])
      expect(updateSpans(HEAD + tail), tail).toBeUndefined();
  });

  it('falls back to the scan for a nested sessionId or a \\u escape, and for an id with escapes', () => {
    meansSame(HEAD + '"a","update":{"sessionUpdate":"u","_meta":{"sessionId":"inner"}}}}', { messageId: 'm' });
    meansSame(HEAD + '"a","update":{"sessionUpdate":"u","text":"caf\\u00e9"}}}');
    meansSame(HEAD + '"a\\"b","update":{"sessionUpdate":"u"}}}');
  });

  it('gives the same answer however lines alternate (the check keeps no state between lines), and refuses a line cut short', () => {
    const dup = HEAD + '"a","update":{"sessionUpdate":"u"},"sessionId":"b"}}';
    const ok = HEAD + '"a","update":{"sessionUpdate":"u","text":"x"}}}';
    for (let i = 0; i < 3; i++) {
      expect(updateSpans(dup)).toBeUndefined();
      expect(updateSpans(ok)).toEqual({ sidStart: HEAD.length, sidEnd: HEAD.length + 3, updateOpen: HEAD.length + 13 });
    }
    expect(updateSpans(HEAD + '"abc')).toBeUndefined();
  });
});
