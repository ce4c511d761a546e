/** Which turn of a session is a run's (contract/turn-watch.ts): the rule the run stream and `talaria run` share. */
import { describe, expect, it } from 'vitest';
import type { SessionSnapshot, StreamEvent } from '../../../src/server/contract/index.js';
import { TurnWatch } from '../../../src/server/contract/turn-watch.js';

let seq = 0;
const ev = (type: string, body: Record<string, unknown>) =>
  ({ type, sessionId: 's', seq: ++seq, at: 0, ...body }) as unknown as StreamEvent;
const ended = (turnId: string) => ev('turn.ended', { turnId, stopReason: 'end_turn', durationMs: 1 });
const queue = (ids: string[], started?: { id: string; turnId: string }) =>
  ev('queue.updated', {
    queue: ids.map((id, i) => ({ id, text: id, images: 0, position: i + 1, queuedAt: 0 })),
    ...(started ? { started } : {}),
  });
const snap = (ids: string[]) => ({ seq: ++seq, queue: ids.map((id) => ({ id })) }) as unknown as SessionSnapshot;

describe('TurnWatch', () => {
  it("a prompt's own turn, even when it ended before the prompt's answer came", () => {
    const w = new TurnWatch();
    w.see(ev('turn.started', { turnId: 't1', prompt: [] }));
    w.see(ended('t1'));
    expect(w.done).toBe(false);
    w.sent({ id: 't1', queued: false });
    expect([w.turnId, w.done, w.doneSeq]).toEqual(['t1', true, seq]);
  });

  it('a queued prompt: the turn its queue update names, not another turn that started first', () => {
    const w = new TurnWatch();
    w.sent({ id: 'q2', queued: true });
    w.see(ended('t0'));
    w.see(ev('turn.started', { turnId: 't1', prompt: [] }));
    w.see(queue(['q2'], { id: 'q1', turnId: 't1' }));
    expect([w.turnId, w.queuedId]).toEqual([undefined, 'q2']);
    w.see(ended('t1'));
    w.see(queue([], { id: 'q2', turnId: 't2' }));
    expect([w.turnId, w.queuedId, w.done]).toEqual(['t2', undefined, false]);
    w.see(ended('t2'));
    expect(w.end).toMatchObject({ turnId: 't2' });
  });

  it("a queued prompt steered into the running turn: that turn, already under way, is the run's from then on", () => {
    const w = new TurnWatch();
    w.see(ev('turn.started', { turnId: 't1', prompt: [] }));
    w.sent({ id: 'q1', queued: true });
    w.see(queue([], { id: 'q1', turnId: 't1' }));
    expect([w.turnId, w.queuedId, w.done]).toEqual(['t1', undefined, false]);
    w.see(ended('t1'));
    expect(w.end).toMatchObject({ turnId: 't1' });
  });

  it('a queued prompt taken off the queue unrun (removed, or a cancel cleared the queue) ends the run', () => {
    const w = new TurnWatch();
    w.sent({ id: 'q1', queued: true });
    w.see(queue(['q1', 'q2']));
    expect(w.done).toBe(false);
    const removal = queue(['q2']);
    w.see(removal);
    expect([w.done, w.doneSeq, w.turnId, w.end]).toEqual([true, removal.seq, undefined, undefined]);
  });

  it("after a gap: the server's turn id, else a queue without the prompt means it was removed", () => {
    const a = new TurnWatch();
    a.sent({ id: 'q1', queued: true });
    a.gap(snap([]), 't5');
    expect([a.turnId, a.queuedId, a.done]).toEqual(['t5', undefined, false]);
    a.see(ended('t5'));
    expect(a.done).toBe(true);

    const b = new TurnWatch();
    b.sent({ id: 'q1', queued: true });
    b.gap(snap(['q1']), undefined);
    expect([b.queuedId, b.done]).toEqual(['q1', false]);
    b.gap(snap([]), undefined);
    expect([b.queuedId, b.done]).toEqual([undefined, true]);

    // A run whose turn is known keeps it.
    const c = new TurnWatch();
    c.sent({ id: 't1', queued: false });
    c.gap(snap([]), 't9');
    expect(c.turnId).toBe('t1');
  });
});
