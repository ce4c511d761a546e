import { describe, it, expect, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addToken, revokeToken, tokensFile } from '../../src/server/index.js';
import { Probe, isEvent, raw, serve, type Seen, type Served } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });

async function session(s: Served): Promise<string> {
  const { workspace } = await s.client.api.openWorkspace({ body: { path: s.p.userHome } });
  const { snapshot } = await s.client.api.createSession({ params: { id: workspace.id }, body: { provider: 'demo' } });
  return snapshot.session.id;
}

async function joined(s: Served, id: string, token?: string): Promise<Probe> {
  const p = new Probe(s.server, token ? { token } : {});
  await p.wait((m) => m.type === 'welcome');
  p.send({ type: 'subscribe', sessionId: id });
  await p.wait((m) => m.type === 'synced');
  return p;
}

describe.concurrent('several clients on one live session', () => {
  it('two controllers race to answer one permission: one wins, both see permission.resolved with who answered; a late joiner gets it pending', async () => {
    const s = await serve();
    writeFileSync(join(s.p.userHome, 'notes.txt'), 'hello\n');
    const id = await session(s);
    const alice = s.server.tokens.addEphemeral('controller', 'alice').token;
    const bob = s.server.tokens.addEphemeral('controller', 'bob').token;
    const [pa, pb] = [await joined(s, id, alice), await joined(s, id, bob)];
    await raw(s.server, `/api/sessions/${id}/prompt`, {
      method: 'POST',
      token: alice,
      body: JSON.stringify({ text: 'edit notes.txt' }),
    });
    const asked = await pa.wait<Extract<Seen, { type: 'event' }>>(isEvent(id, 'permission.asked'));
    const ask = asked.event as Extract<typeof asked.event, { type: 'permission.asked' }>;
    // A late joiner: the snapshot carries the pending request.
    const late = new Probe(s.server);
    await late.wait((m) => m.type === 'welcome');
    late.send({ type: 'subscribe', sessionId: id });
    const snap = await late.wait<Extract<Seen, { type: 'snapshot' }>>((m) => m.type === 'snapshot');
    expect(snap.snapshot.pending.map((p) => p.requestKey)).toEqual([ask.requestKey]);
    expect(snap.snapshot.session.needsAttention).toBe(true);
    const allow = (ask.options as { optionId: string; kind: string }[]).find((o) => o.kind === 'allow_once')!;
    const body = JSON.stringify({ optionId: allow.optionId });
    const path = `/api/sessions/${id}/permissions/${encodeURIComponent(ask.requestKey)}`;
    const [ra, rb] = await Promise.all([
      raw(s.server, path, { method: 'POST', token: alice, body }),
      raw(s.server, path, { method: 'POST', token: bob, body }),
    ]);
    const statuses = [ra.status, rb.status].sort((x, y) => x - y);
    expect(statuses).toEqual([200, 409]);
    const winner = ra.status === 200 ? 'alice' : 'bob';
    const loser = ra.status === 200 ? rb : ra;
    expect(loser.json).toMatchObject({ code: 'conflict', message: `already answered by ${winner}` });
    for (const p of [pa, pb, late]) {
      const r = await p.wait<Extract<Seen, { type: 'event' }>>(isEvent(id, 'permission.resolved'));
      expect(r.event).toMatchObject({ requestKey: ask.requestKey, answeredBy: winner, decidedBy: 'user' });
    }
    await pa.wait(isEvent(id, 'turn.ended'));
    expect(s.harness.store.permissions.listAudit(id)).toEqual([expect.objectContaining({ answeredBy: winner })]);
    for (const p of [pa, pb, late]) p.close();
  });

  it('an observer sees everything and can do nothing: forbidden, and nothing happens', async () => {
    const s = await serve();
    const id = await session(s);
    const watcher = s.server.tokens.addEphemeral('observer', 'watcher').token;
    const obs = await joined(s, id, watcher);
    expect(obs.messages[0]).toMatchObject({ type: 'welcome', role: 'observer' });
    const before = s.harness.store.turns.list(id).length;
    const r = await raw(s.server, `/api/sessions/${id}/prompt`, {
      method: 'POST',
      token: watcher,
      body: JSON.stringify({ text: 'hello' }),
    });
    expect([r.status, r.json.code]).toEqual([403, 'forbidden']);
    const c = await raw(s.server, `/api/sessions/${id}/cancel`, { method: 'POST', token: watcher });
    expect(c.status).toBe(403);
    // The controller's turn still shows up for the observer; the observer's never ran.
    await s.client.api.prompt({ params: { id }, body: { text: 'hello' } });
    await obs.wait(isEvent(id, 'turn.ended'));
    expect(obs.events(id).filter((e) => e.type === 'turn.started')).toHaveLength(1);
    expect(s.harness.store.turns.list(id).length).toBe(before + 1);
    obs.close();
  });

  it('revoking a stored token closes its live sockets at once and refuses it from then on', async () => {
    const s = await serve();
    const id = await session(s);
    const file = tokensFile(s.harness.home);
    const { token, record } = addToken(file, 'observer', 'phone');
    s.server.tokens.reload();
    const p = await joined(s, id, token);
    expect((await raw(s.server, '/api/me', { token })).json).toMatchObject({ role: 'observer', label: 'phone' });
    expect(revokeToken(file, record.id)?.id).toBe(record.id);
    expect(await p.closed).toBe(4001);
    expect((await raw(s.server, '/api/me', { token })).status).toBe(401);
  });

  it('the prompt queue is visible and editable while a turn runs', async () => {
    const s = await serve({ vars: { TALARIA_DEMO_SLOW_CHUNKS: '400', TALARIA_DEMO_SLOW_DELAY_MS: '5' } });
    const id = await session(s);
    const p = await joined(s, id);
    await s.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    const q1 = await s.client.api.prompt({ params: { id }, body: { text: 'hello one' } });
    const q2 = await s.client.api.prompt({ params: { id }, body: { text: 'hello two' } });
    expect([q1.queued, q2.queued, q2.position]).toEqual([true, true, 2]);
    expect((await s.client.api.queue({ params: { id } })).queue.map((q) => q.text)).toEqual(['hello one', 'hello two']);
    await s.client.api.editQueued({ params: { id, item: q2.id }, body: { text: 'plan' } });
    const left = await s.client.api.removeQueued({ params: { id, item: q1.id } });
    expect(left.queue.map((q) => [q.text, q.position])).toEqual([['plan', 1]]);
    await p.wait(
      (m) => isEvent(id, 'turn.started')(m) && m.type === 'event' && JSON.stringify(m.event).includes('"plan"'),
    );
    await p.wait((m) => m.type === 'event' && m.event.type === 'queue.updated' && m.event.queue.length === 0);
    const started = p
      .events(id)
      .filter((e) => e.type === 'turn.started')
      .map((e) => JSON.stringify((e as { prompt: unknown }).prompt));
    expect(started.some((x) => x.includes('hello one'))).toBe(false);
    // The update that took q2 off the queue names the turn it became; the removal of q1 names none.
    const updates = p.events(id).filter((e) => e.type === 'queue.updated') as {
      queue: unknown[];
      started?: { id: string; turnId: string };
    }[];
    const turnOfPlan = p.events(id).find((e) => e.type === 'turn.started' && JSON.stringify(e).includes('"plan"')) as {
      turnId: string;
    };
    expect(updates.filter((u) => u.started)).toEqual([
      expect.objectContaining({ queue: [], started: { id: q2.id, turnId: turnOfPlan.turnId } }),
    ]);
    expect(updates.find((u) => u.queue.length === 1)?.started).toBeUndefined();
    p.close();
  });

  it("one queue for every face: a library caller's prompt behind the running turn is in the HTTP queue, removable there; the stream shows the queue, not the queued turn", async () => {
    const s = await serve({ vars: { TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '5' } });
    const id = await session(s);
    const p = await joined(s, id);
    await s.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    const viaHttp = await s.client.api.prompt({ params: { id }, body: { text: 'from the web' } });
    // The same live session, held as a library Session (the caps face, an embedder).
    const lib = s.server.hub.get(id)!.hs.session;
    const turn = lib.prompt('from the library');
    const { queue } = await s.client.api.queue({ params: { id } });
    expect(queue.map((q) => [q.text, q.position])).toEqual([
      ['from the web', 1],
      ['from the library', 2],
    ]);
    expect(queue[0]!.id).toBe(viaHttp.id);
    const left = await s.client.api.removeQueued({ params: { id, item: queue[1]!.id } });
    expect(left.queue.map((q) => q.id)).toEqual([viaHttp.id]);
    expect(await turn.result).toMatchObject({ stopReason: 'cancelled', dropped: true });
    await p.wait(
      (m) =>
        m.type === 'event' &&
        m.event.type === 'queue.updated' &&
        m.event.queue.length === 1 &&
        m.event.queue[0]!.id === viaHttp.id,
    );
    const types = p.events(id).map((e) => e.type);
    expect(types.filter((t) => t === 'queue.updated')).toHaveLength(3);
    expect(types).not.toContain('turn.queued');
    expect(types).not.toContain('turn.ended');
    await s.client.api.cancel({ params: { id } });
    p.close();
  });
});
