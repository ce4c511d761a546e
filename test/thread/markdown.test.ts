import { describe, it, expect } from 'vitest';
import { createThread, toMarkdown, unifiedDiff } from '../../src/thread/index.js';
import { ended, msg, run, started, thought, toolCall, toolUpdate, up } from './builders.js';

function sample() {
  const t = createThread();
  run(
    t,
    up({ sessionUpdate: 'session_info_update', title: 'Fix the build' }),
    {
      type: 'turn.started',
      turnId: '1',
      prompt: [
        { type: 'text', text: 'Fix it' },
        { type: 'image', mimeType: 'image/png', data: 'x' },
        { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts' },
      ],
    },
    thought('First line\n\nsecond line'),
    msg('\n\nOn it.'),
    toolCall('c1', {
      title: 'write: /w/a.ts',
      kind: 'edit',
      locations: [{ path: '/w/a.ts', line: 2 }],
      content: [
        { type: 'content', content: { type: 'text', text: 'Writing ```code```' } },
        { type: 'diff', path: '/w/a.ts', oldText: 'a\nb\nc\n', newText: 'a\nB\nc\n' },
        { type: 'terminal', terminalId: 'term-1' },
      ],
    }),
    {
      type: 'permission',
      toolCall: { toolCallId: 'c1' },
      permission: { requestId: 0, status: 'allowed', optionId: 'allow_once' },
    },
    toolCall('c2', { title: 'terminal: make', kind: 'execute' }),
    toolUpdate('c2', { status: 'completed' }),
    { type: 'notice', level: 'warning', code: 'context_overflow', text: 'Context length exceeded.' },
    up({ sessionUpdate: 'compaction_update', b: 2, a: 1 }),
    up({
      sessionUpdate: 'plan',
      entries: [
        { content: 'Read', status: 'completed' },
        { content: 'Write', status: 'in_progress' },
        { content: 'Ship', status: 'pending' },
      ],
    }),
    ended('1'),
  );
  return t;
}

describe('toMarkdown', () => {
  it('renders every entry kind readably (golden)', () => {
    expect(toMarkdown(sample())).toBe(
      [
        '# Fix the build',
        '',
        '### User',
        '',
        'Fix it',
        '',
        '_[image: image/png]_',
        '',
        '[a.ts](file:///w/a.ts)',
        '',
        '<details>',
        '<summary>Thinking</summary>',
        '',
        'First line',
        '',
        'second line',
        '',
        '</details>',
        '',
        '### Assistant',
        '',
        'On it.',
        '',
        '### Tool: write: /w/a.ts',
        '',
        '- kind: `edit`',
        '- status: completed (settled at turn end)',
        '- locations: `/w/a.ts:2`',
        '- permission: allowed (`allow_once`)',
        '',
        '````text',
        'Writing ```code```',
        '````',
        '',
        '```diff',
        '--- /w/a.ts',
        '+++ /w/a.ts',
        '@@ -1,3 +1,3 @@',
        ' a',
        '-b',
        '+B',
        ' c',
        '```',
        '',
        '_terminal `term-1`_',
        '',
        '### Tool: terminal: make',
        '',
        '- kind: `execute`',
        '- status: completed',
        '',
        '> **Warning** (`context_overflow`): Context length exceeded.',
        '',
        '### Update `compaction_update`',
        '',
        '```json',
        '{"a":1,"b":2,"sessionUpdate":"compaction_update"}',
        '```',
        '',
        '## Plan',
        '',
        '- [x] Read',
        '- [ ] Write _(in progress)_',
        '- [ ] Ship',
        '',
      ].join('\n'),
    );
  });

  it('is deterministic', () => {
    expect(toMarkdown(sample())).toBe(toMarkdown(sample()));
  });

  it('thinking can be quoted or omitted; title and plan are options', () => {
    const t = sample();
    const quoted = toMarkdown(t, { thinking: 'quote', title: 'Export', plan: false });
    expect(quoted.startsWith('# Export\n')).toBe(true);
    expect(quoted).toContain('> **Thinking**\n>\n> First line\n>\n> second line');
    expect(quoted).not.toContain('## Plan');
    const omitted = toMarkdown(t, { thinking: 'omit' });
    expect(omitted).not.toContain('First line');
  });

  it('skips empty messages and says "Thread" when untitled', () => {
    const t = createThread();
    run(t, started('1', ''), msg('hello'));
    expect(toMarkdown(t)).toBe('# Thread\n\n### Assistant\n\nhello\n');
  });

  it('cancelled calls say who settled them', () => {
    const t = createThread();
    run(t, started('1', 'go'), toolCall('c', { title: 'sleep 100', kind: 'execute' }), ended('1', 'cancelled'));
    expect(toMarkdown(t)).toContain('- status: cancelled (settled by cancel)');
  });
});

describe('unifiedDiff', () => {
  it('new file (no oldText)', () => {
    expect(unifiedDiff('out.txt', undefined, 'one\ntwo\n')).toBe(
      '--- /dev/null\n+++ out.txt\n@@ -0,0 +1,2 @@\n+one\n+two',
    );
  });

  it('deleted content', () => {
    expect(unifiedDiff('f', 'x\n', '')).toBe('--- f\n+++ f\n@@ -1,1 +0,0 @@\n-x');
  });

  it('identical text has headers and no hunk', () => {
    expect(unifiedDiff('f', 'same\n', 'same\n')).toBe('--- f\n+++ f');
  });

  it('far-apart changes make two hunks with 3 lines of context', () => {
    const old = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join('\n');
    const neu = old.replace('l2', 'L2').replace('l18', 'L18');
    expect(unifiedDiff('f', old, neu)).toBe(
      [
        '--- f',
        '+++ f',
        '@@ -1,5 +1,5 @@',
        ' l1',
        '-l2',
        '+L2',
        ' l3',
        ' l4',
        ' l5',
        '@@ -15,6 +15,6 @@',
        ' l15',
        ' l16',
        ' l17',
        '-l18',
        '+L18',
        ' l19',
        ' l20',
      ].join('\n'),
    );
  });

  it('insertions in the middle are aligned (LCS), not shown as a rewrite', () => {
    expect(unifiedDiff('f', 'a\nb\nc\nd\n', 'a\nb\nX\nc\nd\nY\n')).toBe(
      '--- f\n+++ f\n@@ -1,4 +1,6 @@\n a\n b\n+X\n c\n d\n+Y',
    );
  });
});
