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
    const lines = toolCard(call({ content: [{ type: 'content', content: { type: 'text', text } }] }), plain, {
      maxLines: 3,
      body: true,
    });
    expect(lines).toEqual([
      '✓ [execute] Run tests completed',
      '  │ line 1',
      '  │ line 2',
      '  │ line 3',
      '  │ … 27 more lines',
    ]);
  });

  it('header only without body; permission state and locations shown', () => {
    const lines = toolCard(
      call({
        status: 'failed',
        title: 'Edit a',
        toolKind: 'edit',
        locations: [{ path: '/w/b.ts', line: 3 }],
        permission: { requestId: 1, status: 'rejected' },
      }),
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

describe('Hermes delegate_task', () => {
  const dispatched = (extra: Partial<ToolCallEntry> = {}): ToolCallEntry => ({
    id: 'e9',
    kind: 'tool_call',
    toolCallId: 'tc-bd9e2768196d',
    title: 'delegate: CHILDTASK: read notes.txt in /workspace and r...',
    toolKind: 'execute',
    status: 'completed',
    locations: [],
    // The recorded 0.18.2 body (fixture hermes-0.18.2-real/20-delegate), note shortened.
    content: [
      {
        type: 'content',
        content: {
          type: 'text',
          text: '{"status": "dispatched", "mode": "background", "count": 1, "delegation_id": "deleg_e4d930d6", "goals": ["CHILDTASK: read notes.txt in /workspace and report its first line"], "note": "Subagent is running in the background."}',
        },
      },
    ],
    ...extra,
  });

  it('a dispatched delegation is a lane (what runs, its id, that nothing more comes), once; not its JSON', () => {
    const shown = new Set<string>();
    const lines = toolCard(dispatched(), plain, { maxLines: 10, body: true, shown }).map(stripAnsi);
    expect(lines.slice(1)).toEqual([
      '  ↳ Subagent running in the background · deleg_e4d930d6',
      '  │ CHILDTASK: read notes.txt in /workspace and report its first line',
      "  │ Hermes does not send the subagent's progress over ACP, and its result does not come back to this session.",
    ]);
    expect(toolCard(dispatched(), plain, { maxLines: 10, body: true, shown })).toHaveLength(1);
  });

  it('anything else keeps the plain card', () => {
    const lines = toolCard(dispatched({ title: 'terminal: echo hi' }), plain, { maxLines: 10, body: true }).map(
      stripAnsi,
    );
    expect(lines[1]).toMatch(/^ {2}│ \{"status": "dispatched"/);
  });
});
