/**
 * The one fold (src/server/client/thread.ts) over a real session's stream: a subscriber's first
 * snapshot plus every event after it is the snapshot the server gives at the end (thread, plan
 * and its turn, pending requests, queue, catalog, usage), and the web's session store, folding
 * the same stream, holds that snapshot and draws what a fresh page draws from it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { applyEvent } from '../../src/server/client/thread.js';
import type { SessionSnapshot, StreamEvent } from '../../src/server/contract/index.js';
import { SessionStore } from '../../web/src/state/session-store.js';
import type { SessionView } from '../../web/src/state/session-view.js';
import { contiguous, demoSession, isEvent, Probe, serve, snapOf, type Seen } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });

const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const settled = (store: SessionStore): Promise<SessionView> => new Promise((r) => setTimeout(() => r(store.get()), 80));
/** What a page draws, without what only that page saw of the stream (see test/web/session-fold.test.ts). */
function drawn(v: SessionView): unknown {
  const { version: _v, resolved: _r, lastStop: _l, planAt: _p, summary: _s, ...rest } = v;
  return plain(rest);
}
/** The snapshot without its list line: preview, updatedAt, failure… come with session.updated, not the stream. */
function kept(s: SessionSnapshot): unknown {
  const { session, agent: _a, ...rest } = plain(s);
  return { ...rest, state: session.state };
}

describe('the one fold over a real stream', () => {
  it('snapshot + events = the server’s snapshot at the end, in the fold and in the web’s store', async () => {
    const s = await serve({ vars: { TALARIA_DEMO_SLOW_CHUNKS: '200', TALARIA_DEMO_SLOW_DELAY_MS: '2' } });
    writeFileSync(join(s.p.userHome, 'notes.txt'), 'hello\n');
    const id = await demoSession(s);
    const p = new Probe(s.server);
    await p.wait((m) => m.type === 'welcome');
    p.send({ type: 'subscribe', sessionId: id });
    await p.wait((m) => m.type === 'synced');
    const first = snapOf(p.messages.find((m) => m.type === 'snapshot'))!;
    const turn = async (text: string, during?: () => Promise<void>): Promise<void> => {
      const ended = p.events(id).filter((e) => e.type === 'turn.ended').length;
      await s.client.api.prompt({ params: { id }, body: { text } });
      await during?.();
      await p.wait(() => p.events(id).filter((e) => e.type === 'turn.ended').length > ended);
    };
    await turn('plan');
    await turn('edit notes.txt', async () => {
      const asked = await p.wait<Extract<Seen, { type: 'event' }>>(isEvent(id, 'permission.asked'));
      const ask = asked.event as Extract<StreamEvent, { type: 'permission.asked' }>;
      const allow = (ask.options as { optionId: string; kind: string }[]).find((o) => o.kind === 'allow_once')!;
      await s.client.api.answerPermission({
        params: { id, requestKey: ask.requestKey },
        body: { optionId: allow.optionId },
      });
    });
    await s.client.api.setMode({ params: { id }, body: { modeId: 'auto' } });
    await s.client.api.setModel({ params: { id }, body: { modelId: 'demo-thorough' } });
    await turn('fail');
    // A prompt queued behind a running turn, then started: the queue's updates.
    await turn('slow', async () => {
      await s.client.api.prompt({ params: { id }, body: { text: 'hello there' } });
    });
    await p.wait(() => p.events(id).filter((e) => e.type === 'turn.ended').length === 5);
    const { snapshot: end } = await s.client.api.snapshot({ params: { id } });
    await p.wait(() => (p.events(id).at(-1)?.seq ?? 0) >= end.seq);
    const events = p.events(id).filter((e) => e.seq > first.seq);
    contiguous(events, first.seq + 1);
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set([
        ...['turn.started', 'turn.ended', 'entry.added', 'entry.updated', 'entry.appended', 'plan.updated'],
        ...['permission.asked', 'permission.decided', 'permission.resolved', 'catalog.updated', 'choice.updated'],
        ...['session.state', 'queue.updated', 'attention', 'context.updated'],
        ...new Set(events.map((e) => e.type)),
      ]),
    );

    const folded = plain(first);
    for (const e of events) applyEvent(folded, e);
    expect(kept(folded)).toEqual(kept(end));
    expect(folded.thread.planTurnId).toBeDefined();

    const store = new SessionStore(id);
    store.applySnapshot(plain(first));
    for (const e of events) store.applyEvent(e);
    expect(plain(store.snapshot())).toEqual(plain(folded));
    const reload = new SessionStore(id);
    reload.applySnapshot(end);
    expect(drawn(await settled(store))).toEqual(drawn(await settled(reload)));
    p.close();
  });
});
