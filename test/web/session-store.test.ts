import { describe, expect, it } from 'vitest';
import type { SessionSnapshot, StreamEvent } from '../../src/server/contract/index.js';
import { SessionStore } from '../../web/src/state/session-store.js';

const snapshot = {
  seq: 1,
  session: { id: 's1', state: 'running' },
  thread: {
    entries: [
      { kind: 'user_message', id: 'u1', text: 'go' },
      { kind: 'assistant_message', id: 'a1', text: 'Hello' },
    ],
    plan: null,
  },
  pending: [],
  queue: [],
  origin: 'new',
} as unknown as SessionSnapshot;

const appended = (seq: number, text: string) =>
  ({ type: 'entry.appended', sessionId: 's1', seq, at: 0, index: 1, text }) as unknown as StreamEvent;

/** The next view the store tells its listeners. */
function nextView(store: SessionStore): Promise<ReturnType<SessionStore['get']>> {
  return new Promise((resolve) => {
    const off = store.subscribe(() => {
      off();
      resolve(store.get());
    });
  });
}

describe('web: a session store hands out views that never change', () => {
  it('a view already told to listeners keeps its entries while later chunks fold in', async () => {
    const store = new SessionStore('s1');
    const loaded = nextView(store);
    store.applySnapshot(snapshot);
    const first = await loaded;
    const drawn = first.entries[1] as { text: string };
    expect(drawn.text).toBe('Hello');

    const later = nextView(store);
    store.applyEvent(appended(2, ', world'));
    store.applyEvent(appended(3, '!'));
    // Before the next notification and after it: the view React drew still holds what it drew
    // (a scroll's re-render of that view must not draw, and parse, chunks it was not given).
    expect(first.entries[1]).toBe(drawn);
    const second = await later;
    expect(first.entries[1]).toBe(drawn);
    expect((second.entries[1] as { text: string }).text).toBe('Hello, world!');
    expect(second.version).toBeGreaterThan(first.version);
    // Until the next notification, get() is the view listeners were told of.
    store.applyEvent(appended(4, ' More.'));
    expect(store.get()).toBe(second);
    expect((store.get().entries[1] as { text: string }).text).toBe('Hello, world!');
  });

  it('pendingCount counts the requests folded so far, before the view that shows them is handed out', () => {
    const store = new SessionStore('s1');
    store.applySnapshot(snapshot);
    const ask = {
      type: 'permission.asked',
      sessionId: 's1',
      seq: 2,
      at: 0,
      requestKey: 'r1',
      toolCallId: 't1',
      options: [],
      subject: {},
    } as unknown as StreamEvent;
    store.applyEvent(ask);
    expect(store.pendingCount).toBe(1);
    const resolved = {
      type: 'permission.resolved',
      sessionId: 's1',
      seq: 3,
      at: 0,
      requestKey: 'r1',
      toolCallId: 't1',
      outcome: {},
      decidedBy: 'user',
    } as unknown as StreamEvent;
    store.applyEvent(resolved);
    expect(store.pendingCount).toBe(0);
  });
});
