/**
 * The streaming hot path (router → session → reducer → subscribers) without a process: what the
 * speed-ups of issue 16 must not change. Events and snapshots are values: nothing a later update
 * does shows through them; a listener that applies while an update fans out loses nothing; the
 * entry events of one read share one clock reading.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PermissionBroker } from '../../src/permission/broker.js';
import type { Frame, Logger } from '../../src/protocol/types.js';
import type { SessionEvent } from '../../src/session/events.js';
import { SessionRouter, type Update } from '../../src/session/router.js';
import type { SessionPort } from '../../src/session/core.js';
import { Session } from '../../src/session/session.js';
import { snapshot } from '../../src/thread/index.js';
import { record } from './helpers.js';
import type { ThreadAction } from '../../src/thread/types.js';

const noop = (): void => {};
const logger: Logger = { debug: noop, info: noop, warn: noop, error: noop, child: () => logger } as unknown as Logger;

/** `send` delivers one update as a read of its own; `push` delivers it inside a read that `router.readEnd()` ends. */
function open(now?: () => number): {
  router: SessionRouter<Session>;
  session: Session;
  send(update: Update): void;
  push(update: Update): void;
} {
  const router = new SessionRouter<Session>();
  const session = new Session({
    id: 'S',
    cwd: '/w',
    port: {} as unknown as SessionPort,
    broker: {} as unknown as PermissionBroker,
    logger,
    ...(now ? { now } : {}),
  });
  router.attach('S', session);
  const push = (update: Update): void => {
    const msg = { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'S', update } };
    const f: Frame = { dir: 'agent->client', t_ms: 0, msg, raw: JSON.stringify(msg) };
    router.frame(f);
    router.update('S', update);
  };
  const send = (update: Update): void => {
    push(update);
    router.readEnd();
  };
  return { router, session, send, push };
}

const chunk = (kind: string, text: string, messageId?: string): Update => ({
  sessionUpdate: kind,
  content: { type: 'text', text },
  ...(messageId ? { messageId } : {}),
});

/** A turn's worth of updates: runs closed by tool calls and kind changes, an id'd message grown after its run closed. */
const STREAM: Update[] = [
  chunk('agent_thought_chunk', 'think '),
  chunk('agent_thought_chunk', 'harder — '),
  chunk('agent_message_chunk', 'Hello '),
  chunk('agent_message_chunk', 'wörld '),
  { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'read a.ts', kind: 'read', status: 'pending' },
  chunk('agent_message_chunk', 'after', 'm1'),
  { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'in_progress' },
  chunk('agent_message_chunk', ' the call', 'm1'),
  { sessionUpdate: 'usage_update', used: 10, size: 100 },
  chunk('agent_thought_chunk', 'again'),
  chunk('agent_message_chunk', ' and more', 'm1'),
  {
    sessionUpdate: 'tool_call_update',
    toolCallId: 't1',
    status: 'completed',
    content: [{ type: 'content', content: { type: 'text', text: 'ok' } }],
  },
  chunk('agent_message_chunk', 'done.'),
];

afterEach(() => vi.restoreAllMocks());

describe('the streaming hot path', () => {
  it('events and snapshots taken at any point never change afterwards', () => {
    const { session, send } = open();
    const taken: { value: unknown; json: string }[] = [];
    session.subscribe((e) => taken.push({ value: e, json: JSON.stringify(e) }));
    session.apply({ type: 'turn.started', turnId: 'T', prompt: [{ type: 'text', text: 'go' }] });
    for (const u of STREAM) {
      send(u);
      const snap = snapshot(session.thread);
      taken.push({ value: snap, json: JSON.stringify(snap) });
    }
    session.apply({ type: 'turn.ended', turnId: 'T', outcome: 'completed' });
    expect(taken.length).toBeGreaterThan(2 * STREAM.length);
    for (const t of taken) expect(JSON.stringify(t.value)).toBe(t.json);
    expect(
      session.thread.entries.map((e) =>
        e.kind === 'tool_call' ? `tool:${e.status}` : `${e.kind}:${'text' in e ? e.text : ''}`,
      ),
    ).toEqual([
      'user_message:go',
      'thought:think harder — ',
      'assistant_message:Hello wörld ',
      'tool:completed',
      'assistant_message:after the call and more',
      'thought:again',
      'assistant_message:done.',
    ]);
  });

  it('a listener that applies while an update fans out: every change of both reaches every listener once', () => {
    const { session, send } = open();
    session.apply({ type: 'turn.started', turnId: 'T', prompt: [] });
    for (const id of ['a', 'b', 'c']) send({ sessionUpdate: 'tool_call', toolCallId: id, title: `call ${id}` });
    const seen: SessionEvent[] = [];
    const other: SessionEvent[] = [];
    let noted = false;
    session.subscribe((e) => {
      seen.push(e);
      // The turn's end settles three calls: a notice added from inside the first one's event.
      if (!noted && e.type === 'entry.updated') {
        noted = true;
        session.notice('info', 'inside', 'added by a listener');
      }
    });
    session.subscribe((e) => other.push(e));
    session.apply({ type: 'turn.ended', turnId: 'T', outcome: 'completed' } satisfies ThreadAction);
    const settled = seen
      .filter((e) => e.type === 'entry.updated')
      .map((e) => (e.type === 'entry.updated' && e.entry.kind === 'tool_call' ? e.entry.toolCallId : '?'));
    expect(settled).toEqual(['a', 'b', 'c']);
    expect(seen.some((e) => e.type === 'entry.added' && e.entry.kind === 'notice')).toBe(true);
    // Each event once, to each listener (a nested emit reaches the later listener first, as any synchronous bus does).
    expect(new Set(other.map((e) => e.seq))).toEqual(new Set(seen.map((e) => e.seq)));
    expect(new Set(seen.map((e) => e.seq)).size).toBe(seen.length);
    expect(other).toHaveLength(seen.length);
    // Later updates still fan out whole.
    send(chunk('agent_message_chunk', 'x'));
    expect(seen.at(-1)).toMatchObject({ type: 'entry.added', entry: { text: 'x' } });
  });

  it('the entry events of one read share one clock reading; the next read reads the clock again', async () => {
    let t = 1000;
    vi.spyOn(Date, 'now').mockImplementation(() => ++t);
    const { session, send } = open();
    const at: number[] = [];
    session.subscribe((e) => void (e.type.startsWith('entry.') && at.push(e.at)));
    send(chunk('agent_message_chunk', 'a'));
    send(chunk('agent_thought_chunk', 'b'));
    await Promise.resolve();
    send(chunk('agent_message_chunk', 'c'));
    expect(at).toHaveLength(3);
    expect(at[1]).toBe(at[0]);
    expect(at[2]).toBeGreaterThan(at[1]!);
  });

  it('an injected clock is read per event', () => {
    let t = 0;
    const { session, send } = open(() => ++t);
    const at: number[] = [];
    session.subscribe((e) => void at.push(e.at));
    send(chunk('agent_message_chunk', 'a'));
    send(chunk('agent_message_chunk', 'b'));
    expect(at).toEqual([1, 2]);
  });
});

describe('text chunks of one read are folded', () => {
  /** The thread as each update reduced on its own would leave it (one read per update). */
  function alone(updates: readonly Update[]): unknown {
    const { session, send } = open();
    session.apply({ type: 'turn.started', turnId: 'T', prompt: [] });
    for (const u of updates) send(u);
    return JSON.parse(JSON.stringify(session.thread.entries));
  }

  it('one event per message per read, with the count of chunks it folds; the thread is the same as chunk by chunk', () => {
    const { session, push, router } = open();
    session.apply({ type: 'turn.started', turnId: 'T', prompt: [] });
    const events = record(session);
    for (const u of STREAM) push(u);
    // Nothing of the read's tail is in the thread or out as an event before the read ends.
    const before = events.length;
    router.readEnd();
    expect(events.length).toBeGreaterThan(before);
    expect(JSON.parse(JSON.stringify(session.thread.entries))).toEqual(alone(STREAM));
    const entryEvents = events.filter((e) => e.type === 'entry.added' || e.type === 'entry.updated');
    // thought run (2) | message run (2) | tool | m1 | tool | m1 | thought | m1 | tool | message = 10 events for 13 updates.
    expect(entryEvents).toHaveLength(10);
    expect(entryEvents.map((e) => (e as { chunks?: number }).chunks ?? 1)).toEqual([2, 2, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(entryEvents[1]).toMatchObject({
      type: 'entry.added',
      entry: { kind: 'assistant_message', text: 'Hello wörld ' },
    });
  });

  it('anything else in the read goes after the text before it, in wire order', () => {
    const { session, push, router } = open();
    const order: string[] = [];
    session.subscribe((e) => {
      if (e.type === 'entry.added' || e.type === 'entry.updated')
        order.push(
          e.entry.kind === 'tool_call'
            ? `tool ${e.entry.toolCallId}`
            : `${e.entry.kind} ${'text' in e.entry ? e.entry.text : ''}`,
        );
    });
    push(chunk('agent_message_chunk', 'one '));
    push(chunk('agent_message_chunk', 'two'));
    push({ sessionUpdate: 'tool_call', toolCallId: 'x', title: 'run' });
    push(chunk('agent_message_chunk', 'three'));
    expect(order).toEqual(['assistant_message one two', 'tool x']);
    router.readEnd();
    expect(order).toEqual(['assistant_message one two', 'tool x', 'assistant_message three']);
  });

  it('an action (turn end, a notice) applies after the text held before it', () => {
    const { session, push } = open();
    session.apply({ type: 'turn.started', turnId: 'T', prompt: [] });
    push(chunk('agent_message_chunk', 'last words'));
    session.apply({ type: 'turn.ended', turnId: 'T', outcome: 'completed' });
    const last = session.thread.entries.at(-1)!;
    expect(last).toMatchObject({ kind: 'assistant_message', text: 'last words', turnId: 'T' });
  });

  it('a read that never ends (a transport without the signal) is still flushed before the next task', async () => {
    const { session, push } = open();
    const events = record(session);
    push(chunk('agent_thought_chunk', 'a'));
    push(chunk('agent_thought_chunk', 'b'));
    await new Promise((r) => setImmediate(r));
    expect(events).toMatchObject([{ type: 'entry.added', entry: { kind: 'thought', text: 'ab' }, chunks: 2 }]);
  });
});
