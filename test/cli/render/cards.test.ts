import { describe, it, expect } from 'vitest';
import { toolCard, diffLines } from '../../../src/cli/render/cards.js';
import { contextMeter, formatTokens, usageText } from '../../../src/cli/render/meter.js';
import { createStyle } from '../../../src/cli/render/style.js';
import { stripAnsi } from '../../../src/cli/render/width.js';
import type { ToolCallEntry } from '../../../src/thread/types.js';

const plain = createStyle(false);
const color = createStyle(true);

describe('meter', () => {
  it.each([
    [950, '950'],
    [1234, '1.2k'],
    [10_229, '10k'],
    [131_072, '131k'],
    [2_500_000, '2.5M'],
  ])('formatTokens(%d) = %s', (n, s) => expect(formatTokens(n)).toBe(s));

  it('context meter: bar, percent, used/size; colour by fullness; unknown size', () => {
    expect(contextMeter({ used: 10_229, size: 131_072 }, plain)).toBe('ctx ▰▱▱▱▱▱▱▱ 8% 10k/131k');
    expect(contextMeter({ used: 120_000, size: 128_000 }, color)).toContain('\x1b[31m');
    expect(contextMeter({ used: 5000 }, plain)).toBe('ctx 5k');
    expect(contextMeter({}, plain)).toBe('');
    expect(usageText({ inputTokens: 1200, outputTokens: 34 })).toBe('in 1.2k out 34 tokens');
    expect(usageText({ totalTokens: 99 })).toBe('99 tokens');
  });
});

describe('tool cards', () => {
  const call = (over: Partial<ToolCallEntry>): ToolCallEntry => ({
    id: 'e1',
    kind: 'tool_call',
    toolCallId: 'c1',
    title: 'Run tests',
    toolKind: 'execute',
    status: 'completed',
    content: [],
    locations: [],
    ...over,
  });

  it('long output is cut to maxLines with a count of the rest', () => {
    const text = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n');
    const lines = toolCard(call({ content: [{ type: 'content', content: { type: 'text', text } }] }), plain, { maxLines: 3, body: true });
    expect(lines).toEqual(['✓ [execute] Run tests completed', '  │ line 1', '  │ line 2', '  │ line 3', '  │ … 27 more lines']);
  });

  it('header only without body; permission state and locations shown', () => {
    const lines = toolCard(
      call({ status: 'failed', title: 'Edit a', toolKind: 'edit', locations: [{ path: '/w/b.ts', line: 3 }], permission: { requestId: 1, status: 'rejected' } }),
      plain,
      { maxLines: 5, body: false },
    );
    expect(lines).toEqual(['✗ [edit] Edit a failed · rejected', '  ↳ /w/b.ts:3']);
  });

  it('diffs are unified, coloured and bounded', () => {
    const lines = diffLines('/w/a.txt', 'one\ntwo\n', 'one\n2\n', color, 50).map((l) => [stripAnsi(l), l] as const);
    expect(lines.map(([p]) => p)).toEqual(['--- /w/a.txt', '+++ /w/a.txt', '@@ -1,2 +1,2 @@', ' one', '-two', '+2']);
    expect(lines.find(([p]) => p === '-two')![1]).toContain('\x1b[31m');
    expect(diffLines('/w/a.txt', null, 'a\nb\nc\nd\n', plain, 3).at(-1)).toBe('… 4 more diff lines');
  });
});
