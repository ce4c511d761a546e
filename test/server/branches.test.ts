/**
 * Issue 14 over HTTP: the branch tree, rewind (edit → resend) and continue elsewhere as
 * `POST /api/sessions/:id/branches`, and "steer now" as `POST /api/sessions/:id/steer`, on a real
 * server with the demo agent; what the agent received is read from the stored wire log.
 */
import { describe, expect, it, vi } from 'vitest';
import { ServerError } from '../../src/server/client/index.js';
import { ROUTES } from '../../src/server/contract/index.js';
import { Probe, isEvent, raw, serve, type Served } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });

/** The text of every session/prompt the agent received, in order. */
async function promptsSent(s: Served, id: string): Promise<string[]> {
  const { frames } = await s.client.api.wireLog({ params: { id }, query: { limit: 5000 } });
  return frames.flatMap((f) => {
    const m = f.msg as { method?: string; params?: { prompt?: { type: string; text?: string }[] } };
    return f.dir === 'client->agent' && m.method === 'session/prompt'
      ? [(m.params?.prompt ?? []).map((b) => b.text ?? '').join('\n')]
      : [];
  });
}

const userTexts = (entries: unknown[]) =>
  (entries as { kind: string; text?: string }[]).filter((e) => e.kind === 'user_message').map((e) => e.text);

async function demoSession(s: Served): Promise<{ id: string; probe: Probe }> {
  const { workspace } = await s.client.api.openWorkspace({ body: { path: s.p.userHome } });
  const { snapshot } = await s.client.api.createSession({ params: { id: workspace.id }, body: { provider: 'demo' } });
  const probe = new Probe(s.server);
  await probe.wait((m) => m.type === 'welcome');
  probe.send({ type: 'subscribe', sessionId: snapshot.session.id, since: snapshot.seq });
  return { id: snapshot.session.id, probe };
}

/** Sends a prompt and waits for its turn to end. */
async function turn(s: Served, probe: Probe, id: string, text: string): Promise<void> {
  const ended = probe.next(isEvent(id, 'turn.ended'));
  await s.client.api.prompt({ params: { id }, body: { text } });
  await ended;
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as ServerError,
  );

describe('branches over HTTP', () => {
  it('rewinds one message back with the edited text: a new session seeded with what came before, listed in the tree', async () => {
    const s = await serve();
    const { id, probe } = await demoSession(s);
    await turn(s, probe, id, 'first question about rivers');
    await turn(s, probe, id, 'second question about lakes');

    const out = await s.client.api.createBranch({
      params: { id },
      body: { back: 1, text: 'second question about seas' },
    });
    ROUTES.createBranch.response.parse(out);
    const b = out.snapshot.session.id;
    expect(b).not.toBe(id);
    expect(out.snapshot.origin).toBe('branched');
    expect(out.turnId).toEqual(expect.any(String));
    const q = new Probe(s.server);
    await q.wait((m) => m.type === 'welcome');
    q.send({ type: 'subscribe', sessionId: b, since: out.snapshot.seq });
    await q.wait(isEvent(b, 'turn.ended'));

    // The agent of the branch got the first exchange as context and the edited message, not the old one.
    const sent = await promptsSent(s, b);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('first question about rivers');
    expect(sent[0]).toContain('second question about seas');
    expect(sent[0]).not.toContain('lakes');
    const { snapshot } = await s.client.api.snapshot({ params: { id: b } });
    expect(userTexts(snapshot.thread.entries).at(-1)).toBe('second question about seas');
    // The source keeps its own messages.
    expect(userTexts((await s.client.api.snapshot({ params: { id } })).snapshot.thread.entries)).toEqual([
      'first question about rivers',
      'second question about lakes',
    ]);

    const tree = await s.client.api.branches({ params: { id: b } });
    ROUTES.branches.response.parse(tree);
    const lakes = (await s.client.api.snapshot({ params: { id } })).snapshot.thread.entries.find(
      (e) => (e as { text?: string }).text === 'second question about lakes',
    ) as {
      id: string;
    };
    expect(tree).toMatchObject({
      current: b,
      tree: { id, provider: 'demo', children: [{ id: b, reason: 'rewind', forkEntryId: lakes.id, children: [] }] },
    });
    // Switching back: the old branch continues where it was.
    await turn(s, probe, id, 'third question');
    expect(userTexts((await s.client.api.snapshot({ params: { id } })).snapshot.thread.entries)).toEqual([
      'first question about rivers',
      'second question about lakes',
      'third question',
    ]);
    probe.close();
    q.close();
  });

  it('rewinds to a message by entry id, and continues elsewhere with `provider` alone', async () => {
    const s = await serve();
    const { id, probe } = await demoSession(s);
    await turn(s, probe, id, 'hello there');
    const entries = (await s.client.api.snapshot({ params: { id } })).snapshot.thread.entries as {
      id: string;
      kind: string;
    }[];
    const first = entries.find((e) => e.kind === 'user_message')!;
    const rewound = await s.client.api.createBranch({ params: { id }, body: { at: first.id } });
    expect(rewound.turnId).toBeUndefined();
    expect(userTexts(rewound.snapshot.thread.entries)).toEqual([]);
    const moved = await s.client.api.createBranch({ params: { id }, body: { provider: 'demo' } });
    const { tree } = await s.client.api.branches({ params: { id } });
    expect(tree.children.map((c) => [c.id, c.reason])).toEqual([
      [rewound.snapshot.session.id, 'rewind'],
      [moved.snapshot.session.id, 'continue'],
    ]);
    probe.close();
  });

  it('bad input: no such message, an assistant message, too far back, both at and back, nothing to do, an unknown agent, no session', async () => {
    const s = await serve();
    const { id, probe } = await demoSession(s);
    await turn(s, probe, id, 'hello there');
    const entries = (await s.client.api.snapshot({ params: { id } })).snapshot.thread.entries as {
      id: string;
      kind: string;
    }[];
    const reply = entries.find((e) => e.kind === 'assistant_message')!;
    expect(await failure(s.client.api.createBranch({ params: { id }, body: { at: 'e-none' } }))).toMatchObject({
      status: 400,
      code: 'invalid_argument',
    });
    expect(await failure(s.client.api.createBranch({ params: { id }, body: { at: reply.id } }))).toMatchObject({
      status: 400,
      message: expect.stringContaining('no user message'),
    });
    expect(await failure(s.client.api.createBranch({ params: { id }, body: { back: 2 } }))).toMatchObject({
      status: 400,
      message: expect.stringContaining('cannot go 2 back'),
    });
    expect(await failure(s.client.api.createBranch({ params: { id }, body: { provider: 'nope' } }))).toMatchObject({
      status: 400,
      fix: expect.stringContaining('/api/providers'),
    });
    expect(await failure(s.client.api.createBranch({ params: { id: 'nope' }, body: { back: 1 } }))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    for (const body of ['{}', '{"at":"x","back":1}', '{"back":0}', '{"back":1,"text":"  "}', '{"at":3}']) {
      const r = await raw(s.server, `/api/sessions/${id}/branches`, { method: 'POST', body });
      expect([r.status, r.json.code], body).toEqual([400, 'invalid_body']);
    }
    // Nothing was created by any of them.
    expect((await s.client.api.branches({ params: { id } })).tree.children).toEqual([]);
    expect((await s.client.api.listSessions()).sessions).toHaveLength(1);
    probe.close();
  });

  it('an observer can read the tree but not branch or steer', async () => {
    const s = await serve();
    const { id, probe } = await demoSession(s);
    const { token } = s.server.tokens.addEphemeral('observer', 'watcher');
    expect((await raw(s.server, `/api/sessions/${id}/branches`, { token })).status).toBe(200);
    for (const [path, body] of [
      ['branches', '{"back":1}'],
      ['steer', '{"text":"now"}'],
    ] as const) {
      const r = await raw(s.server, `/api/sessions/${id}/${path}`, { method: 'POST', token, body });
      expect([r.status, r.json.code], path).toEqual([403, 'forbidden']);
    }
    expect((await s.client.api.listSessions()).sessions).toHaveLength(1);
    expect((await s.client.api.snapshot({ params: { id } })).snapshot.thread.entries).toEqual([]);
    probe.close();
  });
});

describe('steer over HTTP', () => {
  /** A demo session whose slow turn is streaming: what a steer goes into. */
  const slowTurnUnderWay = async () => {
    const s = await serve({ vars: { TALARIA_DEMO_SLOW_CHUNKS: '2000', TALARIA_DEMO_SLOW_DELAY_MS: '5' } });
    const { id, probe } = await demoSession(s);
    await s.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    await probe.wait((m) => m.type === 'event' && m.event.sessionId === id && m.event.type === 'entry.appended');
    return { s, id, probe };
  };

  /** Three turns: slow (cancelled), the correction resent with its partial answer, then 'queued after'. */
  const resentThenQueued = async (s: Served, probe: Probe, id: string, correction: string) => {
    await probe.wait((m) => probe.events(id).filter((e) => e.type === 'turn.ended').length === 3 && m.type === 'event');
    const sent = await promptsSent(s, id);
    expect(sent).toHaveLength(3);
    expect(sent[0]).toBe('slow');
    expect(sent[1]).toContain('The user interrupted your answer');
    expect(sent[1]).toContain('Chunk 1 of 2000');
    expect(sent[1]).toContain(correction);
    expect(sent[2]).toBe('queued after');
    const { snapshot } = await s.client.api.snapshot({ params: { id } });
    expect(userTexts(snapshot.thread.entries)).toEqual(['slow', correction, 'queued after']);
    return snapshot;
  };

  it('while a turn runs on an agent without steering: cancelled and resent with the partial answer, before what was queued', async () => {
    const { s, id, probe } = await slowTurnUnderWay();
    const queued = await s.client.api.prompt({ params: { id }, body: { text: 'queued after' } });
    expect(queued.queued).toBe(true);

    const r = await s.client.api.steer({ params: { id }, body: { text: 'about lakes instead' } });
    ROUTES.steer.response.parse(r);
    expect(r).toEqual({ how: 'resent', turnId: expect.any(String) });
    const snapshot = await resentThenQueued(s, probe, id, 'about lakes instead');
    expect(snapshot.thread.entries).toContainEqual(expect.objectContaining({ kind: 'notice', code: 'steered' }));
    probe.close();
  });

  it('a queued prompt steered by its id: off the queue in one step, and the update that drops it names the turn that carries it', async () => {
    const { s, id, probe } = await slowTurnUnderWay();
    const first = await s.client.api.prompt({ params: { id }, body: { text: 'about rivers' } });
    const second = await s.client.api.prompt({ params: { id }, body: { text: 'queued after' } });
    expect([first.queued, second.queued]).toEqual([true, true]);

    const r = await s.client.api.steer({ params: { id }, body: { queued: first.id } });
    ROUTES.steer.response.parse(r);
    expect(r).toEqual({ how: 'resent', turnId: expect.any(String) });
    const drop = probe
      .events(id)
      .find((e) => e.type === 'queue.updated' && !(e.queue as { id: string }[]).some((q) => q.id === first.id));
    expect(drop).toMatchObject({
      started: { id: first.id, turnId: r.turnId },
      queue: [{ id: second.id, position: 1 }],
    });
    // Gone from the queue: a second steer or a removal of it is 404, not a second send.
    expect(await failure(s.client.api.steer({ params: { id }, body: { queued: first.id } }))).toMatchObject({
      status: 404,
    });
    expect(await failure(s.client.api.removeQueued({ params: { id, item: first.id } }))).toMatchObject({ status: 404 });
    expect(await failure(s.client.api.steer({ params: { id }, body: { text: 'x', queued: second.id } }))).toMatchObject(
      { status: 400, code: 'invalid_body' },
    );

    await resentThenQueued(s, probe, id, 'about rivers');
    probe.close();
  });

  it('a queued prompt with an image is not steered (a steer is text): 400, and it stays queued', async () => {
    const { s, id, probe } = await slowTurnUnderWay();
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const q = await s.client.api.prompt({
      params: { id },
      body: { text: 'look', images: [{ mimeType: 'image/png', data: png }] },
    });
    expect(q.queued).toBe(true);
    expect(await failure(s.client.api.steer({ params: { id }, body: { queued: q.id } }))).toMatchObject({
      status: 400,
    });
    expect((await s.client.api.queue({ params: { id } })).queue.map((x) => x.id)).toEqual([q.id]);
    await s.client.api.cancel({ params: { id } });
    probe.close();
  });

  it('with nothing running a steer is a normal message; blank text is refused', async () => {
    const s = await serve();
    const { id, probe } = await demoSession(s);
    const ended = probe.next(isEvent(id, 'turn.ended'));
    expect(await s.client.api.steer({ params: { id }, body: { text: 'hello' } })).toEqual({
      how: 'prompt',
      turnId: expect.any(String),
    });
    await ended;
    expect(await promptsSent(s, id)).toEqual(['hello']);
    expect(await failure(s.client.api.steer({ params: { id }, body: { text: '  ' } }))).toMatchObject({
      status: 400,
      code: 'invalid_body',
    });
    expect(await failure(s.client.api.steer({ params: { id: 'nope' }, body: { text: 'x' } }))).toMatchObject({
      status: 404,
    });
    probe.close();
  });
});
