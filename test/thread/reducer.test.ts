import { describe, it, expect } from 'vitest';
import { createThread, reduce, reduceUpdate } from '../../src/thread/index.js';
import type { Thread, ThreadAction, ThreadChange } from '../../src/thread/types.js';
import { ended, msg, run, shape, started, text, thought, toolCall, up } from './builders.js';

describe('every known update kind', () => {
  const cmds = [{ name: 'help', description: 'List available commands' }];
  const opts = [{ id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: 'm1', options: [] }];
  const plan = [{ content: 'Inspect notes', priority: 'medium', status: 'completed' }];
  const cases: {
    kind: string;
    update: Record<string, unknown>;
    change: ThreadChange['type'];
    check: (t: Thread) => void;
  }[] = [
    {
      kind: 'user_message_chunk',
      update: { content: text('q') },
      change: 'entry.added',
      check: (t) => expect(shape(t.entries)).toEqual(['user_message:q']),
    },
    {
      kind: 'agent_message_chunk',
      update: { content: text('a') },
      change: 'entry.added',
      check: (t) => expect(shape(t.entries)).toEqual(['assistant_message:a']),
    },
    {
      kind: 'agent_thought_chunk',
      update: { content: text('t') },
      change: 'entry.added',
      check: (t) => expect(shape(t.entries)).toEqual(['thought:t']),
    },
    {
      kind: 'tool_call',
      update: { toolCallId: 'c', title: 'x' },
      change: 'entry.added',
      check: (t) => expect(shape(t.entries)).toEqual(['tool:c:pending']),
    },
    {
      kind: 'tool_call_update',
      update: { toolCallId: 'c', status: 'failed' },
      change: 'entry.added',
      check: (t) => expect(shape(t.entries)).toEqual(['tool:c:failed']),
    },
    { kind: 'plan', update: { entries: plan }, change: 'plan.updated', check: (t) => expect(t.plan).toEqual(plan) },
    {
      kind: 'available_commands_update',
      update: { availableCommands: cmds },
      change: 'commands.updated',
      check: (t) => expect(t.availableCommands).toEqual(cmds),
    },
    {
      kind: 'current_mode_update',
      update: { currentModeId: 'accept_edits' },
      change: 'mode.updated',
      check: (t) => expect(t.currentModeId).toBe('accept_edits'),
    },
    {
      kind: 'config_option_update',
      update: { configOptions: opts },
      change: 'config.updated',
      check: (t) => expect(t.configOptions).toEqual(opts),
    },
    {
      kind: 'session_info_update',
      update: { title: 'Fake title', updatedAt: '2026-11-30T01:19:02Z' },
      change: 'info.updated',
      check: (t) => expect([t.title, t.updatedAt]).toEqual(['Fake title', '2026-11-30T01:19:02Z']),
    },
    {
      kind: 'usage_update',
      update: { used: 8754, size: 131072 },
      change: 'context.updated',
      check: (t) => expect(t.context).toEqual({ used: 8754, size: 131072 }),
    },
  ];
  it.each(cases)('$kind → $change', ({ kind, update, change, check }) => {
    const t = createThread();
    const changes = reduce(t, up({ sessionUpdate: kind, ...update }));
    expect(changes.map((c) => c.type)).toEqual([change]);
    check(t);
    expect(t.entries.some((e) => e.kind === 'unknown')).toBe(false);
  });

  it('thread-level changes carry the new values', () => {
    const t = createThread();
    expect(reduce(t, up({ sessionUpdate: 'current_mode_update', currentModeId: 'dont_ask' }))).toEqual([
      { type: 'mode.updated', modeId: 'dont_ask' },
    ]);
    expect(reduce(t, up({ sessionUpdate: 'plan', entries: [] }))).toEqual([{ type: 'plan.updated', plan: [] }]);
    expect(
      reduce(t, up({ sessionUpdate: 'usage_update', used: 1, size: 2, cost: { amount: 0.5, currency: 'USD' } })),
    ).toEqual([{ type: 'context.updated', context: { used: 1, size: 2, cost: { amount: 0.5, currency: 'USD' } } }]);
  });
});

describe('thread-level rules', () => {
  it('a plan replaces the previous plan', () => {
    const t = createThread();
    run(
      t,
      up({
        sessionUpdate: 'plan',
        entries: [
          { content: 'a', status: 'pending' },
          { content: 'b', status: 'pending' },
        ],
      }),
    );
    run(t, up({ sessionUpdate: 'plan', entries: [{ content: 'c', status: 'completed' }] }));
    expect(t.plan).toEqual([{ content: 'c', status: 'completed' }]);
    expect(t.entries).toEqual([]);
  });

  it('usage: size can shrink; cost is kept when absent and cleared by null', () => {
    const t = createThread();
    run(t, up({ sessionUpdate: 'usage_update', used: 10, size: 131072, cost: { amount: 1, currency: 'USD' } }));
    run(t, up({ sessionUpdate: 'usage_update', used: 10861, size: 8192 }));
    expect(t.context).toEqual({ used: 10861, size: 8192, cost: { amount: 1, currency: 'USD' } });
    run(t, up({ sessionUpdate: 'usage_update', used: 5, size: 8192, cost: null }));
    expect(t.context).toEqual({ used: 5, size: 8192 });
  });

  it('a new context object each time (old snapshots do not change)', () => {
    const t = createThread();
    run(t, up({ sessionUpdate: 'usage_update', used: 1, size: 2 }));
    const old = t.context;
    run(t, up({ sessionUpdate: 'usage_update', used: 3, size: 4 }));
    expect(old).toEqual({ used: 1, size: 2 });
  });

  it('session_info_update with only _meta (pi) updates only meta', () => {
    const t = createThread();
    run(t, up({ sessionUpdate: 'session_info_update', title: 'T', updatedAt: 'U' }));
    const changes = reduce(t, up({ sessionUpdate: 'session_info_update', _meta: { pi: { cwd: '/w' } } }));
    expect(changes).toEqual([{ type: 'info.updated', title: 'T', updatedAt: 'U' }]);
    expect(t).toMatchObject({ title: 'T', updatedAt: 'U', meta: { pi: { cwd: '/w' } } });
  });

  it("session_info_update: a title the agent made of Talaria's seed prompt is not taken (a branch keeps its own)", () => {
    const t = createThread();
    run(t, up({ sessionUpdate: 'session_info_update', title: 'Rivers (rewind)' }));
    run(
      t,
      up({
        sessionUpdate: 'session_info_update',
        title: 'Demo: [Talaria] This conversation continues from an earlier…',
        updatedAt: 'U',
      }),
    );
    expect(t).toMatchObject({ title: 'Rivers (rewind)', updatedAt: 'U' });
  });

  it('session_info_update: null clears a field', () => {
    const t = createThread();
    run(
      t,
      up({ sessionUpdate: 'session_info_update', title: 'T', updatedAt: 'U' }),
      up({ sessionUpdate: 'session_info_update', title: null }),
    );
    expect(t.title).toBeUndefined();
    expect(t.updatedAt).toBe('U');
  });
});

describe('unknown and malformed updates are kept, never dropped, never thrown', () => {
  const unknownKinds = [
    'notice',
    'compaction_update',
    'compaction_summary_chunk',
    'plan_update',
    'plan_removed',
    'subagent_update',
    'session_message',
    'session_message_chunk',
    '_model_state_update',
    'from_the_future',
  ];
  it.each(unknownKinds)('%s becomes an unknown entry with the raw update', (kind) => {
    const t = createThread();
    run(t, started('1'));
    const update = { sessionUpdate: kind, anything: { nested: [1, 2] } };
    const changes = reduce(t, up(update));
    expect(changes).toEqual([{ type: 'entry.added', index: 1, entry: t.entries[1] }]);
    expect(t.entries[1]).toEqual({ id: 'e1', turnId: '1', kind: 'unknown', sessionUpdate: kind, raw: update });
  });

  const malformed: { name: string; update: unknown; kind: string }[] = [
    { name: 'tool_call without toolCallId', update: { sessionUpdate: 'tool_call', title: 'x' }, kind: 'tool_call' },
    {
      name: 'tool_call with an empty toolCallId',
      update: { sessionUpdate: 'tool_call', toolCallId: '', title: 'x' },
      kind: 'tool_call',
    },
    {
      name: 'tool_call_update with a numeric toolCallId',
      update: { sessionUpdate: 'tool_call_update', toolCallId: 7 },
      kind: 'tool_call_update',
    },
    { name: 'chunk without content', update: { sessionUpdate: 'agent_message_chunk' }, kind: 'agent_message_chunk' },
    {
      name: 'chunk with an array of blocks',
      update: { sessionUpdate: 'agent_message_chunk', content: [text('a')] },
      kind: 'agent_message_chunk',
    },
    {
      name: 'chunk whose text is not a string',
      update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 5 } },
      kind: 'agent_thought_chunk',
    },
    {
      name: 'chunk block without type',
      update: { sessionUpdate: 'user_message_chunk', content: { text: 'a' } },
      kind: 'user_message_chunk',
    },
    { name: 'plan without entries', update: { sessionUpdate: 'plan' }, kind: 'plan' },
    {
      name: 'commands not an array',
      update: { sessionUpdate: 'available_commands_update', availableCommands: {} },
      kind: 'available_commands_update',
    },
    { name: 'mode update without id', update: { sessionUpdate: 'current_mode_update' }, kind: 'current_mode_update' },
    {
      name: 'config update without options',
      update: { sessionUpdate: 'config_option_update', configOptions: null },
      kind: 'config_option_update',
    },
    { name: 'usage without numbers', update: { sessionUpdate: 'usage_update', used: '1' }, kind: 'usage_update' },
    { name: 'update without sessionUpdate', update: { content: text('a') }, kind: '' },
    { name: 'update that is not an object', update: 'garbage', kind: '' },
    { name: 'null update', update: null, kind: '' },
  ];
  it.each(malformed)('$name → unknown entry', ({ update, kind }) => {
    const t = createThread();
    run(t, msg('open run'));
    const changes = reduce(t, { type: 'update', update } as ThreadAction);
    expect(changes).toEqual([{ type: 'entry.added', index: 1, entry: t.entries[1] }]);
    expect(t.entries[1]).toMatchObject({ kind: 'unknown', sessionUpdate: kind, raw: update });
    // and the open run was closed by it
    run(t, msg('next'));
    expect(shape(t.entries)[2]).toBe('assistant_message:next');
  });

  it('malformed actions never throw', () => {
    const t = createThread();
    const bad = [
      { type: 'permission', toolCall: {}, permission: { requestId: 1, status: 'pending' } },
      { type: 'permission', toolCall: null, permission: null },
      { type: 'whatever' },
      { type: 'turn.started', turnId: 1, prompt: 'not blocks' },
    ] as unknown as ThreadAction[];
    for (const a of bad) expect(() => reduce(t, a)).not.toThrow();
    expect(shape(t.entries)).toEqual(['unknown:permission', 'unknown:permission', 'unknown:whatever', 'user_message:']);
    expect(t.entries[3]).toMatchObject({ turnId: '1' });
  });
});

describe('turns and notices', () => {
  it('entries get the open turn id until turn.ended', () => {
    const t = createThread();
    run(
      t,
      msg('before'),
      started('7', 'go'),
      thought('t'),
      msg('m'),
      toolCall('c', { title: 'x' }),
      ended('7'),
      msg('after'),
    );
    expect(t.entries.map((e) => e.turnId)).toEqual([undefined, '7', '7', '7', '7', undefined]);
  });

  it('a notice entry holds level, code, text and data', () => {
    const t = createThread();
    run(t, started('1'));
    const changes = reduce(t, {
      type: 'notice',
      level: 'error',
      code: 'context_overflow',
      text: 'Context length exceeded',
      data: { size: 8192 },
    });
    expect(changes).toEqual([{ type: 'entry.added', index: 1, entry: t.entries[1] }]);
    expect(t.entries[1]).toEqual({
      id: 'e1',
      turnId: '1',
      kind: 'notice',
      level: 'error',
      code: 'context_overflow',
      text: 'Context length exceeded',
      data: { size: 8192 },
    });
  });

  it('is deterministic: the same actions give equal threads and changes', () => {
    const actions: ThreadAction[] = [
      started('1', 'hi'),
      thought('hm'),
      msg('a'),
      toolCall('c', { title: 'x', kind: 'read' }),
      up({ sessionUpdate: 'mystery', v: 1 }),
      { type: 'notice', level: 'info', code: 'n', text: 'note' },
      ended('1'),
    ];
    const a = createThread();
    const b = createThread();
    const ca = run(a, ...actions);
    const cb = run(b, ...actions);
    expect(ca).toEqual(cb);
    expect(JSON.stringify(a.entries)).toBe(JSON.stringify(b.entries));
    expect(a.entries.map((e) => e.id)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4', 'e5']);
  });

  it('works on a hand-built Thread whose _ix lacks the private state (indexes rebuilt once)', () => {
    const t: Thread = {
      entries: [
        {
          id: 'e4',
          kind: 'tool_call',
          toolCallId: 'c',
          title: 'read: x',
          status: 'pending',
          content: [],
          locations: [],
          turnId: '1',
        },
      ],
      plan: null,
      availableCommands: [],
      context: {},
      _ix: { nextId: 0, openRun: -1, toolCalls: new Map(), messages: new Map() },
    };
    run(t, up({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'completed' }), msg('x'));
    expect(shape(t.entries)).toEqual(['tool:c:completed', 'assistant_message:x']);
    expect(t.entries[1]!.id).toBe('e5');
  });
});

describe('the changes array', () => {
  it('reduce appends to the array it is given and returns that array', () => {
    const t = createThread();
    const out: ThreadChange[] = [];
    expect(reduce(t, msg('a'), out)).toBe(out);
    expect(reduce(t, msg('b'), out)).toBe(out);
    expect(out.map((c) => c.type)).toEqual(['entry.added', 'entry.updated']);
    expect(reduce(t, msg('c')).map((c) => c.type)).toEqual(['entry.updated']);
  });

  it('reduceUpdate is reduce of an update action: same thread, same changes, unknowns included', () => {
    const updates: unknown[] = [
      { sessionUpdate: 'agent_message_chunk', content: text('a') },
      { sessionUpdate: 'agent_message_chunk', content: text('b') },
      { sessionUpdate: 'tool_call', toolCallId: 't', title: 'read', status: 'pending' },
      { sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'completed' },
      { sessionUpdate: 'usage_update', used: 1, size: 2 },
      { sessionUpdate: 'no_such_kind', x: 1 },
      { sessionUpdate: 'agent_message_chunk', content: 'not a block' },
      null,
    ];
    const a = createThread();
    const b = createThread();
    for (const u of updates) {
      const viaAction = reduce(a, { type: 'update', update: u } as ThreadAction);
      expect(reduceUpdate(b, u, [])).toEqual(viaAction);
    }
    expect(b.entries).toEqual(a.entries);
  });
});
