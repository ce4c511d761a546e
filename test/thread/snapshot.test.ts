import { describe, it, expect } from 'vitest';
import { createThread, reduce, snapshot, threadFromSnapshot } from '../../src/thread/index.js';
import type { Entry, Thread, ThreadAction } from '../../src/thread/types.js';
import { ended, msg, run, shape, started, thought, tool, toolCall, toolUpdate, up, user } from './builders.js';

/** A thread caught mid-turn: open run, messageId entries, open and settled tool calls, thread-level state. */
function midTurnThread(): Thread {
  const t = createThread();
  run(
    t,
    up({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'help' }] }),
    up({ sessionUpdate: 'usage_update', used: 1, size: 100, cost: { amount: 2, currency: 'USD' } }),
    started('1', 'first'),
    msg('old answer'),
    toolCall('done', { title: 'read: a', kind: 'read' }),
    ended('1'),
    up({ sessionUpdate: 'session_info_update', title: 'T', updatedAt: 'U', _meta: { k: 1 } }),
    up({ sessionUpdate: 'current_mode_update', currentModeId: 'default' }),
    up({ sessionUpdate: 'config_option_update', configOptions: [{ id: 'x' }] }),
    up({ sessionUpdate: 'plan', entries: [{ content: 'p', status: 'pending' }] }),
    started('2', 'second'),
    thought('hm', 'th1'),
    msg('A ', 'm1'),
    toolCall('open', { title: 'terminal: ls', kind: 'execute', status: 'in_progress' }),
    {
      type: 'permission',
      toolCall: { toolCallId: 'perm-1', title: 'rm' },
      permission: { requestId: 0, status: 'pending' },
    },
    up({ sessionUpdate: 'mystery_update', v: 1 }),
    { type: 'notice', level: 'info', code: 'c', text: 'n' },
    msg('run '),
  );
  return t;
}

const continuation: ThreadAction[] = [
  msg('continues'),
  msg('B', 'm1'),
  thought(' more', 'th1'),
  toolUpdate('done', { _meta: { late: true } }),
  toolUpdate('open', { content: [{ type: 'content', content: { type: 'text', text: 'out' } }] }),
  toolCall('new', { title: 'x' }),
  user('echo'),
  ended('2', 'cancelled'),
];

const plain = (t: Thread) => JSON.parse(JSON.stringify(snapshot(t))) as unknown;

describe('snapshot', () => {
  it('is JSON-serializable, has no _ix, and is a copy', () => {
    const t = midTurnThread();
    const s = snapshot(t);
    expect('_ix' in s).toBe(false);
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    expect(s).toMatchObject({ title: 'T', updatedAt: 'U', currentModeId: 'default', meta: { k: 1 }, openTurnId: '2' });
    const n = s.entries.length;
    const first = s.entries[3];
    run(t, ...continuation);
    expect(s.entries).toHaveLength(n);
    expect(s.entries[3]).toBe(first);
    expect(s.openTurnId).toBe('2');
  });

  it('round trip: a restored thread reduces exactly like the original (indexes, run, turn, ids rebuilt)', () => {
    const original = midTurnThread();
    const restored = threadFromSnapshot(JSON.stringify(snapshot(original)));
    expect(plain(restored)).toEqual(plain(original));
    const c1 = run(original, ...continuation);
    const c2 = run(restored, ...continuation);
    expect(JSON.parse(JSON.stringify(c2))).toEqual(JSON.parse(JSON.stringify(c1)));
    expect(plain(restored)).toEqual(plain(original));
    // spot checks that prove the indexes were rebuilt rather than entries duplicated
    expect(shape(restored.entries).filter((s) => s.startsWith('tool:open'))).toEqual(['tool:open:cancelled']);
    expect(restored.entries.find((e) => e.kind === 'assistant_message' && e.messageId === 'm1')).toMatchObject({
      text: 'A B',
    });
    expect(tool(restored, 'perm-1')).toMatchObject({ status: 'cancelled', permission: { status: 'cancelled' } });
    expect(tool(restored, 'done')._meta).toEqual({ late: true });
  });

  it('accepts an object as well as JSON text; garbage gives an empty thread; bad rows are kept as unknown', () => {
    expect(threadFromSnapshot(snapshot(midTurnThread())).entries.length).toBeGreaterThan(0);
    for (const g of ['not json', 42, null, { entries: 'no' }]) {
      const t = threadFromSnapshot(g);
      expect(t.entries).toEqual([]);
      run(t, msg('works'));
      expect(shape(t.entries)).toEqual(['assistant_message:works']);
    }
    const t = threadFromSnapshot({
      entries: [{ id: 'e3', kind: 'assistant_message', text: 'a', blocks: [] }, 'junk', { kind: 'weird' }],
    });
    expect(t.entries.map((e) => [e.id, e.kind])).toEqual([
      ['e3', 'assistant_message'],
      ['e4', 'unknown'],
      ['e5', 'unknown'],
    ]);
    expect(t.entries[1]).toMatchObject({ sessionUpdate: 'snapshot_row', raw: 'junk' });
    run(t, toolCall('x', { title: 'y' }));
    expect(t.entries[3]!.id).toBe('e6');
  });
});

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}

describe('entries are immutable', () => {
  it('an entry object held by a consumer never changes; the reducer never writes into one', () => {
    const t = createThread();
    const held: { entry: Entry; json: string }[] = [];
    const feed = (...actions: ThreadAction[]) => {
      for (const a of actions) {
        for (const c of reduce(t, a)) {
          if (c.type === 'entry.added' || c.type === 'entry.updated') {
            // Frozen: any in-place write would throw in this strict-mode module, and the reducer
            // would turn the failed action into an `unknown` entry, failing the check below.
            deepFreeze(c.entry);
            held.push({ entry: c.entry, json: JSON.stringify(c.entry) });
          }
        }
      }
    };
    feed(started('1', 'go'), msg('a'), msg('b'), msg('c', 'm1'), msg('d', 'm1'), thought('t'));
    feed(up({ sessionUpdate: 'user_message_chunk', content: { type: 'image', mimeType: 'image/png', data: 'x' } }));
    feed(up({ sessionUpdate: 'user_message_chunk', content: { type: 'image', mimeType: 'image/png', data: 'y' } }));
    feed(
      toolCall('c1', { title: 'read: x', kind: 'read', content: [] }),
      toolUpdate('c1', { status: 'in_progress', _meta: { a: 1 } }),
    );
    feed({ type: 'permission', toolCall: { toolCallId: 'c1' }, permission: { requestId: 1, status: 'pending' } });
    feed(toolCall('c2', { title: 'x' }), ended('1', 'cancelled'), toolUpdate('c2', { status: 'completed' }));
    expect(t.entries.some((e) => e.kind === 'unknown')).toBe(false);
    for (const h of held) expect(JSON.stringify(h.entry)).toBe(h.json);
    expect(held.length).toBeGreaterThan(12);
    expect(tool(t, 'c1')).toMatchObject({ status: 'cancelled', permission: { status: 'cancelled' } });
  });
});

describe('O(1) per update (behaviour, not timing)', () => {
  it('100,000 chunks and updates on a 10,000-entry thread only touch the entries they change', () => {
    const t = createThread();
    // 3,333 turns of [user, assistant (messageId), tool call] → 9,999 entries, + 1 prompt = 10,000.
    for (let i = 0; i < 3333; i++) {
      run(
        t,
        started(`t${i}`, `q${i}`),
        msg(`a${i}`, `m${i}`),
        toolCall(`c${i}`, { title: `read: f${i}` }),
        ended(`t${i}`),
      );
    }
    run(t, started('big', 'the big one'));
    expect(t.entries).toHaveLength(10_000);
    const oldMsg = t.entries.findIndex((e) => e.kind === 'assistant_message' && e.messageId === 'm10');
    const oldCall = t.entries.findIndex((e) => e.kind === 'tool_call' && e.toolCallId === 'c20');

    // Count every indexed read of the entries array from here on.
    const reads = new Map<number, number>();
    t.entries = new Proxy(t.entries, {
      get(target, prop, receiver) {
        if (typeof prop === 'string' && prop.charCodeAt(0) <= 57 && /^\d+$/.test(prop))
          reads.set(+prop, (reads.get(+prop) ?? 0) + 1);
        return Reflect.get(target, prop, receiver);
      },
    });

    let actions = 0;
    for (let i = 0; i < 100_000; i++) {
      let a: ThreadAction;
      if (i % 1000 === 999)
        a = toolUpdate('c20', { _meta: { n: i } }); // an old call, by id
      else if (i % 1000 === 998)
        a = msg('.', 'm10'); // an old message, by messageId
      else if (i % 10_000 === 5000)
        a = toolCall(`new${i}`, { title: 'x' }); // opens a fresh run after it
      else a = i % 200 < 100 ? msg('x') : thought('y'); // runs of 100, alternating kinds
      reduce(t, a);
      actions++;
    }
    reduce(t, ended('big'));

    const touchedOld = [...reads.keys()].filter((k) => k < 10_000).sort((a, b) => a - b);
    expect(touchedOld).toEqual([oldMsg, oldCall].sort((a, b) => a - b));
    const total = [...reads.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(2 * actions + 20);
    // and the work was done
    expect(tool(t, 'c20')._meta).toEqual({ n: 99_999 });
    expect((t.entries[oldMsg] as { text: string }).text).toBe('a10' + '.'.repeat(100));
    expect(tool(t, 'new5000')).toMatchObject({ status: 'completed', settledBy: 'turn_end' });
  });
});

describe('the plan keeps the turn that set it', () => {
  it('a plan in a turn records it, one outside a turn clears it; a snapshot carries it', () => {
    const t = createThread();
    reduce(t, started('t1', 'plan'));
    const changes = reduce(t, up({ sessionUpdate: 'plan', entries: [{ content: 'a' }] }));
    expect(changes).toEqual([{ type: 'plan.updated', plan: [{ content: 'a' }], turnId: 't1' }]);
    expect(threadFromSnapshot(JSON.stringify(snapshot(t))).planTurnId).toBe('t1');
    reduce(t, ended('t1'));
    reduce(t, up({ sessionUpdate: 'plan', entries: [] }));
    expect(t.planTurnId).toBeUndefined();
  });
});
