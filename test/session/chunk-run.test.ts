/**
 * ChunkRun: consecutive text chunks of one message are held and handed on as one update that
 * folds them, in order; anything else (another kind, another messageId, a non-text block, a
 * malformed chunk) is never held and makes what is held go first.
 */
import { describe, expect, it } from 'vitest';
import { ChunkRun } from '../../src/session/chunk-run.js';
import type { Update } from '../../src/session/router.js';

const chunk = (kind: string, text: string, messageId?: unknown): Update => ({
  sessionUpdate: kind,
  content: { type: 'text', text },
  ...(messageId !== undefined ? { messageId } : {}),
});

function harness(): { run: ChunkRun; out: [Update, number][]; tick: () => void } {
  const out: [Update, number][] = [];
  const queued: (() => void)[] = [];
  const run = new ChunkRun(
    (u, n) => out.push([u, n]),
    (f) => queued.push(f),
  );
  return { run, out, tick: () => queued.splice(0).forEach((f) => f()) };
}

describe('ChunkRun', () => {
  it('folds consecutive text chunks of one kind into one update, in order', () => {
    const { run, out } = harness();
    for (const t of ['Hel', 'lo ', '', 'wörld']) expect(run.take(chunk('agent_message_chunk', t))).toBe(true);
    expect(out).toEqual([]);
    expect(run.size).toBe(4);
    run.flush();
    expect(out).toEqual([
      [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello wörld' } }, 4],
    ]);
    run.flush(); // nothing held: no-op
    expect(out).toHaveLength(1);
  });

  it('a new kind or messageId starts a new fold; the messageId is kept', () => {
    const { run, out } = harness();
    run.take(chunk('agent_thought_chunk', 'a'));
    run.take(chunk('agent_thought_chunk', 'b'));
    run.take(chunk('agent_message_chunk', 'c', 'm1'));
    run.take(chunk('agent_message_chunk', 'd', 'm1'));
    run.take(chunk('agent_message_chunk', 'e', 'm2'));
    run.take(chunk('agent_message_chunk', 'f', '')); // an empty id is no id
    run.flush();
    expect(out.map(([u, n]) => [u.sessionUpdate, (u.content as { text: string }).text, u.messageId, n])).toEqual([
      ['agent_thought_chunk', 'ab', undefined, 2],
      ['agent_message_chunk', 'cd', 'm1', 2],
      ['agent_message_chunk', 'e', 'm2', 1],
      ['agent_message_chunk', 'f', undefined, 1],
    ]);
  });

  it('never holds what is not a well-formed text chunk', () => {
    const { run } = harness();
    const others: Update[] = [
      { sessionUpdate: 'agent_message_chunk', content: { type: 'image', data: 'x', mimeType: 'image/png' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 7 } },
      { sessionUpdate: 'agent_message_chunk', content: null },
      { sessionUpdate: 'agent_message_chunk' },
      chunk('agent_message_chunk', 'x', 42),
      { sessionUpdate: 'tool_call', toolCallId: 't', title: 'x' },
      { sessionUpdate: 'usage_update', used: 1 },
    ];
    for (const u of others) expect(run.take(u)).toBe(false);
    expect(run.size).toBe(0);
  });

  it('before(): a chunk of the same message keeps the fold open; anything else flushes it first', () => {
    const { run, out } = harness();
    run.take(chunk('user_message_chunk', 'a'));
    run.before(chunk('user_message_chunk', 'b'));
    expect(out).toEqual([]);
    run.before(chunk('user_message_chunk', 'b', 'other'));
    expect(out).toHaveLength(1);
    run.take(chunk('user_message_chunk', 'c'));
    run.before({ sessionUpdate: 'plan', entries: [] });
    expect(out.map(([u]) => (u.content as { text: string }).text)).toEqual(['a', 'c']);
  });

  it('what is held is flushed by the scheduled task when nobody flushes it sooner, once per fold', () => {
    const { run, out, tick } = harness();
    run.take(chunk('agent_message_chunk', 'a'));
    run.take(chunk('agent_message_chunk', 'b'));
    tick();
    expect(out).toEqual([[chunk('agent_message_chunk', 'ab'), 2]]);
    run.take(chunk('agent_message_chunk', 'c'));
    run.flush();
    tick(); // the scheduled flush finds nothing held
    expect(out).toHaveLength(2);
  });

  it('with the default scheduler, a fold is flushed before the next macrotask', async () => {
    const out: string[] = [];
    const run = new ChunkRun((u) => out.push((u.content as { text: string }).text));
    run.take(chunk('agent_message_chunk', 'x'));
    run.take(chunk('agent_message_chunk', 'y'));
    await new Promise((r) => setImmediate(r));
    expect(out).toEqual(['xy']);
  });
});
