import { describe, it, expect } from 'vitest';
import { createThread, reduce } from '../../src/thread/index.js';
import type { MessageEntry, ThreadAction } from '../../src/thread/types.js';
import { ended, msg, run, shape, started, thought, toolCall, toolUpdate, up, user } from './builders.js';

describe('message boundaries without messageId', () => {
  const cases: { name: string; actions: ThreadAction[]; expected: string[] }[] = [
    {
      name: 'consecutive chunks of one kind build one message',
      actions: [msg('Hello '), msg('from '), msg('Hermes')],
      expected: ['assistant_message:Hello from Hermes'],
    },
    {
      name: 'thought then message then thought: three entries',
      actions: [thought('a'), thought('b'), msg('c'), msg('d'), thought('e')],
      expected: ['thought:ab', 'assistant_message:cd', 'thought:e'],
    },
    {
      name: 'user, agent and user chunks alternate',
      actions: [user('q1'), msg('a1'), user('q2'), user('+more')],
      expected: ['user_message:q1', 'assistant_message:a1', 'user_message:q2+more'],
    },
    {
      name: 'a new tool call closes the run',
      actions: [msg('before'), toolCall('t1', { title: 'x' }), msg('after')],
      expected: ['assistant_message:before', 'tool:t1:pending', 'assistant_message:after'],
    },
    {
      name: 'an update to a known tool call does not split the message (as in Zed)',
      actions: [
        toolCall('t1', { title: 'x' }),
        msg('one '),
        toolUpdate('t1', { status: 'in_progress' }),
        msg('message'),
      ],
      expected: ['tool:t1:in_progress', 'assistant_message:one message'],
    },
    {
      name: 'an update for an unknown tool call creates an entry and closes the run',
      actions: [msg('a'), toolUpdate('t9', { status: 'in_progress' }), msg('b')],
      expected: ['assistant_message:a', 'tool:t9:in_progress', 'assistant_message:b'],
    },
    {
      name: 'an unknown update closes the run',
      actions: [msg('a'), up({ sessionUpdate: 'compaction_update', phase: 'start' }), msg('b')],
      expected: ['assistant_message:a', 'unknown:compaction_update', 'assistant_message:b'],
    },
    {
      name: 'a notice closes the run',
      actions: [msg('a'), { type: 'notice', level: 'warning', code: 'x', text: 'careful' }, msg('b')],
      expected: ['assistant_message:a', 'notice:x', 'assistant_message:b'],
    },
    {
      name: 'turn.started closes the run (and its prompt is its own entry)',
      actions: [msg('a'), started('1', 'next'), msg('b')],
      expected: ['assistant_message:a', 'user_message:next', 'assistant_message:b'],
    },
    {
      name: 'echoed user chunks after turn.started start their own message',
      actions: [started('1', 'first'), user('queued'), msg('x')],
      expected: ['user_message:first', 'user_message:queued', 'assistant_message:x'],
    },
    {
      name: 'turn.ended closes the run',
      actions: [started('1'), msg('a'), ended('1'), msg('b')],
      expected: ['user_message:hi', 'assistant_message:a', 'assistant_message:b'],
    },
    {
      name: 'thread-level updates (usage, plan, commands) keep the run open',
      actions: [
        msg('a'),
        up({ sessionUpdate: 'usage_update', used: 1, size: 2 }),
        up({ sessionUpdate: 'plan', entries: [] }),
        up({ sessionUpdate: 'available_commands_update', availableCommands: [] }),
        msg('b'),
      ],
      expected: ['assistant_message:ab'],
    },
  ];
  it.each(cases)('$name', ({ actions, expected }) => {
    const t = createThread();
    run(t, ...actions);
    expect(shape(t.entries)).toEqual(expected);
  });
});

describe('message boundaries with messageId', () => {
  it('same id appends, a new id starts a new entry', () => {
    const t = createThread();
    run(t, msg('Hel', 'm1'), msg('lo', 'm1'), msg('Bye', 'm2'));
    expect(shape(t.entries)).toEqual(['assistant_message:Hello', 'assistant_message:Bye']);
    expect((t.entries[0] as MessageEntry).messageId).toBe('m1');
    expect((t.entries[1] as MessageEntry).messageId).toBe('m2');
  });

  it('a chunk for an earlier messageId goes back to that entry even after other entries', () => {
    const t = createThread();
    const changes = run(t, msg('A1 ', 'm1'), toolCall('t1', { title: 'x' }), msg('B', 'm2'), msg('A2', 'm1'));
    expect(shape(t.entries)).toEqual(['assistant_message:A1 A2', 'tool:t1:pending', 'assistant_message:B']);
    expect(changes.at(-1)).toMatchObject({ type: 'entry.updated', index: 0 });
  });

  it('interleaved thought and message with ids keep separate entries, even sharing one id', () => {
    const t = createThread();
    run(t, thought('think ', 'x'), msg('say ', 'x'), thought('more', 'x'), msg('more', 'x'));
    expect(shape(t.entries)).toEqual(['thought:think more', 'assistant_message:say more']);
  });

  it('two consecutive messages with different ids do not merge (no-id rule would have merged them)', () => {
    const t = createThread();
    run(t, user('OVERFLOW now', 'u1'), user('AUTHFAIL now', 'u2'));
    expect(shape(t.entries)).toEqual(['user_message:OVERFLOW now', 'user_message:AUTHFAIL now']);
  });

  it('a chunk without id after an id-carrying one of the same kind continues it', () => {
    const t = createThread();
    run(t, msg('a', 'm1'), msg('b'));
    expect(shape(t.entries)).toEqual(['assistant_message:ab']);
  });

  it('a chunk sent by id to an older entry does not move the open run', () => {
    const t = createThread();
    run(t, msg('old', 'm1'), thought('think'), msg('+late', 'm1'), thought(' on'));
    expect(shape(t.entries)).toEqual(['assistant_message:old+late', 'thought:think on']);
  });

  it('a null or empty messageId counts as absent', () => {
    const t = createThread();
    run(
      t,
      up({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' }, messageId: null }),
      msg('b', ''),
    );
    expect(shape(t.entries)).toEqual(['assistant_message:ab']);
    expect('messageId' in t.entries[0]!).toBe(false);
  });
});

describe('empty chunks (Claude and qwen open each message with "")', () => {
  it('are no-ops: no entry, no change, no run moved', () => {
    const t = createThread();
    expect(reduce(t, msg(''))).toEqual([]);
    expect(t.entries).toEqual([]);
    run(t, msg('Hi'));
    expect(reduce(t, msg(''))).toEqual([]);
    run(t, msg(' there'));
    expect(shape(t.entries)).toEqual(['assistant_message:Hi there']);
  });

  it('an empty chunk of another kind does not close the open run', () => {
    const t = createThread();
    run(t, thought('a'), msg(''), thought('b'));
    expect(shape(t.entries)).toEqual(['thought:ab']);
  });

  it('an empty chunk with a new messageId creates nothing; the id starts its entry on the first real text', () => {
    const t = createThread();
    run(t, msg('first', 'm1'), msg('', 'm2'), msg('second', 'm2'));
    expect(shape(t.entries)).toEqual(['assistant_message:first', 'assistant_message:second']);
  });
});

describe('content blocks', () => {
  it('text is folded into text, other blocks go to blocks in order', () => {
    const t = createThread();
    const img = { type: 'image', mimeType: 'image/png', data: 'AAAA' };
    const link = { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' };
    run(
      t,
      up({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'look: ' } }),
      up({ sessionUpdate: 'user_message_chunk', content: img }),
      up({ sessionUpdate: 'user_message_chunk', content: link }),
      up({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'ok?' } }),
    );
    expect(t.entries).toHaveLength(1);
    expect(t.entries[0]).toMatchObject({ kind: 'user_message', text: 'look: ok?', blocks: [img, link] });
  });

  it('a message may start with a non-text block', () => {
    const t = createThread();
    run(t, up({ sessionUpdate: 'agent_message_chunk', content: { type: 'audio', mimeType: 'audio/wav', data: '' } }));
    expect(t.entries[0]).toMatchObject({ kind: 'assistant_message', text: '', blocks: [{ type: 'audio' }] });
  });

  it('turn.started keeps the prompt text and its other blocks', () => {
    const t = createThread();
    const img = { type: 'image', mimeType: 'image/png', data: 'x' };
    const changes = reduce(t, {
      type: 'turn.started',
      turnId: 't1',
      prompt: [{ type: 'text', text: 'a ' }, img, { type: 'text', text: 'b' }],
    });
    expect(changes).toEqual([{ type: 'entry.added', index: 0, entry: t.entries[0] }]);
    expect(t.entries[0]).toMatchObject({ kind: 'user_message', turnId: 't1', text: 'a b', blocks: [img] });
  });
});

describe('changes emitted for chunks', () => {
  it('first chunk adds, later chunks update the same index with a new object', () => {
    const t = createThread();
    const [c1] = reduce(t, msg('a'));
    const [c2] = reduce(t, msg('b'));
    expect(c1).toMatchObject({ type: 'entry.added', index: 0 });
    expect(c2).toMatchObject({ type: 'entry.updated', index: 0 });
    expect(c2?.type === 'entry.updated' && c2.entry).toBe(t.entries[0]);
    expect((c1 as { entry: MessageEntry }).entry.text).toBe('a');
  });
});
