import { describe, it, expect } from 'vitest';
import { createThread, reduce, FALLBACK_TITLE } from '../../src/thread/index.js';
import type { PermissionState, ThreadAction, ToolCallEntry } from '../../src/thread/types.js';
import { ended, run, shape, started, tool, toolCall, toolUpdate } from './builders.js';

const perm = (
  toolCall: Record<string, unknown> & { toolCallId: string },
  permission: Partial<PermissionState> = {},
): ThreadAction => ({
  type: 'permission',
  toolCall,
  permission: { requestId: 0, status: 'pending', ...permission },
});

describe('tool call upsert', () => {
  it('a new tool_call without status (Hermes) is pending, with every field kept', () => {
    const t = createThread();
    const changes = reduce(
      t,
      toolCall('tc-1', {
        title: 'read: /w/a.txt',
        kind: 'read',
        locations: [{ path: '/w/a.txt', line: 3 }],
        rawInput: { path: '/w/a.txt' },
        _meta: { x: 1 },
      }),
    );
    expect(changes).toEqual([{ type: 'entry.added', index: 0, entry: t.entries[0] }]);
    expect(t.entries[0]).toEqual({
      id: 'e0',
      kind: 'tool_call',
      toolCallId: 'tc-1',
      title: 'read: /w/a.txt',
      toolKind: 'read',
      status: 'pending',
      content: [],
      locations: [{ path: '/w/a.txt', line: 3 }],
      rawInput: { path: '/w/a.txt' },
      _meta: { x: 1 },
    });
  });

  it('an update replaces present fields and keeps absent ones', () => {
    const t = createThread();
    const c1 = [{ type: 'content', content: { type: 'text', text: '$ echo hi' } }];
    const c2 = [{ type: 'content', content: { type: 'text', text: 'hi' } }];
    run(
      t,
      toolCall('tc-1', {
        title: 'terminal: echo hi',
        kind: 'execute',
        content: c1,
        locations: [{ path: '/w' }],
        rawInput: { command: 'echo hi' },
      }),
      toolUpdate('tc-1', { status: 'completed', content: c2, rawOutput: { exit: 0 }, kind: 'execute' }),
    );
    expect(tool(t, 'tc-1')).toMatchObject({
      title: 'terminal: echo hi',
      toolKind: 'execute',
      status: 'completed',
      settledBy: 'agent',
      content: c2,
      locations: [{ path: '/w' }],
      rawInput: { command: 'echo hi' },
      rawOutput: { exit: 0 },
    });
  });

  it('null fields in an update mean "unchanged"', () => {
    const t = createThread();
    run(
      t,
      toolCall('a', { title: 'T', kind: 'read', locations: [{ path: '/x' }] }),
      toolUpdate('a', { title: null, kind: null, content: null, locations: null, status: null }),
    );
    expect(tool(t, 'a')).toMatchObject({
      title: 'T',
      toolKind: 'read',
      status: 'pending',
      locations: [{ path: '/x' }],
      content: [],
    });
  });

  it('a second tool_call for a known id is an update, not a new entry (older Claude adapters)', () => {
    const t = createThread();
    run(
      t,
      toolCall('a', { title: 'Read', kind: 'read', status: 'pending' }),
      toolCall('a', { title: 'Read /src/x.ts', status: 'in_progress' }),
    );
    expect(shape(t.entries)).toEqual(['tool:a:in_progress']);
    expect(tool(t, 'a').title).toBe('Read /src/x.ts');
  });

  it('tool_call_update for an unknown id creates the entry, title from the update or the kind', () => {
    const t = createThread();
    run(
      t,
      toolUpdate('x1', { status: 'in_progress', kind: 'execute' }),
      toolUpdate('x2', { title: 'grep foo', kind: 'search' }),
      toolUpdate('x3', { status: 'completed' }),
    );
    expect(t.entries.map((e) => (e as ToolCallEntry).title)).toEqual(['execute', 'grep foo', FALLBACK_TITLE]);
    expect(tool(t, 'x1').status).toBe('in_progress');
    expect(tool(t, 'x2').status).toBe('pending');
    expect(tool(t, 'x3')).toMatchObject({ status: 'completed', settledBy: 'agent' });
  });

  it('rawInput {} announced first is refined by a later update (Claude, pi)', () => {
    const t = createThread();
    run(
      t,
      toolCall('c', { title: 'Terminal', kind: 'execute', rawInput: {} }),
      toolUpdate('c', { status: 'pending', rawInput: { command: 'ls' } }),
      toolUpdate('c', { status: 'pending', rawInput: { command: 'ls -la' }, title: '`ls -la`' }),
    );
    expect(tool(t, 'c')).toMatchObject({ rawInput: { command: 'ls -la' }, title: '`ls -la`', status: 'pending' });
  });

  it('a _meta-only update changes only _meta', () => {
    const t = createThread();
    run(
      t,
      toolCall('m', {
        title: 'Edit a.ts',
        kind: 'edit',
        status: 'in_progress',
        content: [{ type: 'diff', path: 'a.ts', newText: 'x' }],
        _meta: { v: 1 },
      }),
    );
    const before = tool(t, 'm');
    const changes = reduce(t, toolUpdate('m', { _meta: { claudeCode: { toolName: 'Edit' } } }));
    const after = tool(t, 'm');
    expect(changes).toEqual([{ type: 'entry.updated', index: 0, entry: after }]);
    expect(after).not.toBe(before);
    expect(after).toEqual({ ...before, _meta: { claudeCode: { toolName: 'Edit' } } });
  });

  it('invalid status strings are ignored, unknown tool kinds are kept as strings', () => {
    const t = createThread();
    run(t, toolCall('k', { title: 'do', kind: 'teleport', status: 'exploded' }));
    expect(tool(t, 'k')).toMatchObject({ toolKind: 'teleport', status: 'pending' });
  });

  it('content sent as a single object is kept as a one-item list', () => {
    const t = createThread();
    run(t, toolCall('s', { title: 'x', content: { type: 'content', content: { type: 'text', text: 'y' } } }));
    expect(tool(t, 's').content).toEqual([{ type: 'content', content: { type: 'text', text: 'y' } }]);
  });
});

describe('titles never degrade', () => {
  const cases: { name: string; start: Record<string, unknown>; update: Record<string, unknown>; title: string }[] = [
    {
      name: 'completion without title keeps the start title (Hermes)',
      start: { title: 'read: /w/notes.txt', kind: 'read' },
      update: { status: 'completed', kind: 'read' },
      title: 'read: /w/notes.txt',
    },
    {
      name: 'bare kind as title keeps the better one',
      start: { title: 'terminal: ls', kind: 'execute' },
      update: { title: 'execute' },
      title: 'terminal: ls',
    },
    {
      name: 'bare kind in another case keeps the better one',
      start: { title: 'grep foo', kind: 'search' },
      update: { title: 'Search' },
      title: 'grep foo',
    },
    {
      name: 'title equal to an unknown kind string keeps the better one',
      start: { title: 'zap it', kind: 'zap' },
      update: { title: 'zap' },
      title: 'zap it',
    },
    {
      name: 'empty title keeps the better one',
      start: { title: 'write: /w/o.txt', kind: 'edit' },
      update: { title: '' },
      title: 'write: /w/o.txt',
    },
    {
      name: 'whitespace title keeps the better one',
      start: { title: 'write: /w/o.txt' },
      update: { title: '  ' },
      title: 'write: /w/o.txt',
    },
    {
      name: 'a generic title is refined (Claude)',
      start: { title: 'Edit', kind: 'edit' },
      update: { title: 'Edit `src/a.ts`' },
      title: 'Edit `src/a.ts`',
    },
    {
      name: 'a real title replaces another real one',
      start: { title: 'Read file', kind: 'read' },
      update: { title: 'Read /etc/hosts' },
      title: 'Read /etc/hosts',
    },
    {
      name: 'a fallback title takes a bare kind',
      start: { kind: undefined },
      update: { title: 'fetch' },
      title: 'fetch',
    },
  ];
  it.each(cases)('$name', ({ start, update, title }) => {
    const t = createThread();
    run(t, toolCall('a', start), toolUpdate('a', update));
    expect(tool(t, 'a').title).toBe(title);
  });

  it('a tool_call with no title falls back to its kind, then takes a real title', () => {
    const t = createThread();
    run(t, toolCall('a', { kind: 'execute' }));
    expect(tool(t, 'a').title).toBe('execute');
    run(t, toolUpdate('a', { title: 'npm test' }));
    expect(tool(t, 'a').title).toBe('npm test');
  });
});

describe('settlement', () => {
  it('turn end settles still-open calls of that turn; agent-settled ones stay as they are', () => {
    const t = createThread();
    run(
      t,
      started('1'),
      toolCall('read', { title: 'read: /w/notes.txt', kind: 'read' }),
      toolCall('term', { title: 'terminal: echo', kind: 'execute' }),
      toolUpdate('term', { status: 'completed' }),
      toolCall('run', { title: 'running', status: 'in_progress' }),
      toolCall('bad', { title: 'x' }),
      toolUpdate('bad', { status: 'failed' }),
    );
    const changes = reduce(t, ended('1', 'completed'));
    expect(changes.map((c) => c.type === 'entry.updated' && (c.entry as ToolCallEntry).toolCallId)).toEqual([
      'read',
      'run',
    ]);
    expect(tool(t, 'read')).toMatchObject({ status: 'completed', settledBy: 'turn_end', title: 'read: /w/notes.txt' });
    expect(tool(t, 'run')).toMatchObject({ status: 'completed', settledBy: 'turn_end' });
    expect(tool(t, 'term')).toMatchObject({ status: 'completed', settledBy: 'agent' });
    expect(tool(t, 'bad')).toMatchObject({ status: 'failed', settledBy: 'agent' });
  });

  const outcomes = [
    { outcome: 'completed', status: 'completed', settledBy: 'turn_end' },
    { outcome: 'cancelled', status: 'cancelled', settledBy: 'cancel' },
    { outcome: 'failed', status: 'failed', settledBy: 'turn_end' },
  ] as const;
  it.each(outcomes)('outcome $outcome → $status ($settledBy)', ({ outcome, status, settledBy }) => {
    const t = createThread();
    run(t, started('1'), toolCall('a', { title: 'x' }), toolUpdate('b', { status: 'in_progress' }));
    run(t, ended('1', outcome));
    expect(tool(t, 'a')).toMatchObject({ status, settledBy });
    expect(tool(t, 'b')).toMatchObject({ status, settledBy });
  });

  it('only the ended turn is settled; entries after turn.ended carry no turnId', () => {
    const t = createThread();
    run(
      t,
      toolCall('before', { title: 'x' }),
      started('1'),
      toolCall('in1', { title: 'x' }),
      ended('2'),
      ended('1'),
      toolCall('after', { title: 'x' }),
    );
    expect(tool(t, 'before')).toMatchObject({ status: 'pending' });
    expect(tool(t, 'before').turnId).toBeUndefined();
    expect(tool(t, 'in1')).toMatchObject({ status: 'completed', turnId: '1' });
    expect(tool(t, 'after').turnId).toBeUndefined();
    run(t, started('2'), ended('2'));
    expect(tool(t, 'after').status).toBe('pending');
  });

  it('pending permissions are cancelled when the turn is cancelled', () => {
    const t = createThread();
    run(
      t,
      started('1'),
      toolCall('a', { title: 'write: /w/x', kind: 'edit' }),
      perm({ toolCallId: 'a' }, { requestId: 7 }),
    );
    run(t, ended('1', 'cancelled'));
    expect(tool(t, 'a')).toMatchObject({
      status: 'cancelled',
      settledBy: 'cancel',
      permission: { requestId: 7, status: 'cancelled' },
    });
  });

  it('a call whose permission was rejected ends failed, not completed, on a normal turn end', () => {
    const t = createThread();
    run(
      t,
      started('1'),
      perm({ toolCallId: 'perm-check-1', title: 'rm -rf x', kind: 'execute', status: 'pending' }, { requestId: 1 }),
    );
    run(
      t,
      perm(
        { toolCallId: 'perm-check-1' },
        { requestId: 1, status: 'rejected', optionId: 'deny', optionKind: 'reject_once' },
      ),
    );
    run(t, ended('1'));
    expect(tool(t, 'perm-check-1')).toMatchObject({
      status: 'failed',
      settledBy: 'turn_end',
      permission: { status: 'rejected', optionId: 'deny' },
    });
  });

  it('a late update after settlement is still applied; a terminal status is never reopened', () => {
    const t = createThread();
    run(t, started('1'), toolCall('a', { title: 'kill me', kind: 'execute' }), ended('1', 'cancelled'));
    run(
      t,
      toolUpdate('a', {
        status: 'in_progress',
        content: [{ type: 'content', content: { type: 'text', text: 'late output' } }],
      }),
    );
    expect(tool(t, 'a')).toMatchObject({ status: 'cancelled', settledBy: 'cancel', content: [{ type: 'content' }] });
    // opencode/kilo report the killed tool completed after cancel: the agent's word wins.
    run(t, toolUpdate('a', { status: 'completed' }));
    expect(tool(t, 'a')).toMatchObject({ status: 'completed', settledBy: 'agent' });
  });
});

describe('permissions', () => {
  it('a permission for a never-announced call creates it (gemini) with the permission state', () => {
    const t = createThread();
    run(t, started('1'));
    const changes = reduce(
      t,
      perm(
        { toolCallId: 'g1', title: 'Shell: ls', kind: 'execute', content: [], rawInput: { command: 'ls' } },
        { requestId: 3 },
      ),
    );
    expect(changes).toHaveLength(1);
    expect(changes[0]!.type).toBe('entry.added');
    expect(tool(t, 'g1')).toMatchObject({
      title: 'Shell: ls',
      toolKind: 'execute',
      status: 'pending',
      turnId: '1',
      permission: { requestId: 3, status: 'pending' },
      rawInput: { command: 'ls' },
    });
  });

  it('a permission before its tool_call (kilo): the later tool_call updates the same entry', () => {
    const t = createThread();
    run(
      t,
      perm({ toolCallId: 'k1', title: 'edit' }),
      toolCall('k1', { title: 'Edit src/a.ts', kind: 'edit', status: 'in_progress' }),
    );
    expect(shape(t.entries)).toEqual(['tool:k1:in_progress']);
    expect(tool(t, 'k1')).toMatchObject({ title: 'Edit src/a.ts', permission: { status: 'pending' } });
  });

  it("a permission never changes a known call's status (codex: in_progress, then asks with pending)", () => {
    const t = createThread();
    run(
      t,
      toolCall('c1', { title: 'apply patch', status: 'in_progress' }),
      perm({ toolCallId: 'c1', status: 'pending' }),
    );
    expect(tool(t, 'c1')).toMatchObject({ status: 'in_progress', permission: { status: 'pending' } });
  });

  it('the answer replaces the permission state', () => {
    const t = createThread();
    run(
      t,
      perm({ toolCallId: 'p', title: 'x' }, { requestId: 'r1' }),
      perm(
        { toolCallId: 'p' },
        { requestId: 'r1', status: 'allowed', optionId: 'allow_once', optionKind: 'allow_once' },
      ),
    );
    expect(tool(t, 'p').permission).toEqual({
      requestId: 'r1',
      status: 'allowed',
      optionId: 'allow_once',
      optionKind: 'allow_once',
    });
  });
});

describe('tool call times (a live session passes its clock)', () => {
  it('a call starts when first seen and ends when it turns terminal, by the agent or by the turn end; none without a clock', () => {
    let now = 1_000;
    const t = createThread(() => now);
    reduce(t, started('t1'));
    reduce(t, toolCall('a', { title: 'run', status: 'in_progress' }));
    reduce(t, toolCall('b', { title: 'read' }));
    now = 3_500;
    reduce(t, toolUpdate('a', { status: 'completed' }));
    now = 4_000;
    // A late update of a finished call does not move its end.
    reduce(t, toolUpdate('a', { status: 'completed', content: [] }));
    now = 9_000;
    reduce(t, ended('t1'));
    const [a, b] = t.entries.filter((e): e is ToolCallEntry => e.kind === 'tool_call');
    expect([a!.startedAt, a!.endedAt]).toEqual([1_000, 3_500]);
    expect([b!.startedAt, b!.endedAt, b!.settledBy]).toEqual([1_000, 9_000, 'turn_end']);

    const bare = createThread();
    reduce(bare, toolCall('c', { title: 'x', status: 'completed' }));
    expect((bare.entries[0] as ToolCallEntry).startedAt).toBeUndefined();
  });
});
