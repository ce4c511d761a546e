/**
 * `POST /api/run` (issue 16): the folder opened, a new session and its prompt in one request;
 * a subscriber `since` the answer's snapshot gets the whole turn, and an error answer sent no prompt.
 */
import { describe, expect, it, vi } from 'vitest';
import { ServerError } from '../../src/server/client/index.js';
import { ROUTES } from '../../src/server/contract/index.js';
import { Probe, isEvent, serve } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });

describe('POST /api/run', () => {
  it('opens the workspace, starts a session and its turn; the stream since the snapshot has the whole turn', async () => {
    const s = await serve();
    const probe = new Probe(s.server);
    await probe.wait((m) => m.type === 'welcome');
    const out = await s.client.api.run({ body: { path: s.p.userHome, provider: 'demo', text: 'hello from run' } });
    ROUTES.run.response.parse(out);
    expect(out.workspace.path).toBe(s.p.userHome);
    expect(out.turn).toMatchObject({ queued: false, position: 0 });
    const id = out.snapshot.session.id;
    expect(out.snapshot.session.provider).toBe('demo');
    expect(out.snapshot.turnId).toBeUndefined();
    probe.send({ type: 'subscribe', sessionId: id, since: out.snapshot.seq });
    const started = await probe.wait(isEvent(id, 'turn.started'));
    expect(started).toBeDefined();
    await probe.wait(isEvent(id, 'turn.ended'));
    const { snapshot } = await s.client.api.snapshot({ params: { id } });
    const users = (snapshot.thread.entries as { kind: string; text?: string }[])
      .filter((e) => e.kind === 'user_message')
      .map((e) => e.text);
    expect(users).toEqual(['hello from run']);
    // The workspace is the one openWorkspace gives for the folder, and the session is listed there.
    const { workspace } = await s.client.api.openWorkspace({ body: { path: s.p.userHome } });
    expect(workspace.id).toBe(out.workspace.id);
    const { sessions } = await s.client.api.listSessions({ query: { workspace: workspace.id } });
    expect(sessions.map((x) => x.id)).toContain(id);
    probe.close();
  });

  it('an error answer sends no prompt and creates no session', async () => {
    const s = await serve();
    const before = (await s.client.api.listSessions({})).sessions.length;
    const fail = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => e as ServerError,
      );
    expect(await fail(s.client.api.run({ body: { path: s.p.userHome, provider: 'nope', text: 'hi' } }))).toMatchObject({
      status: 400,
      code: 'invalid_argument',
    });
    expect(
      await fail(s.client.api.run({ body: { path: '/no/such/dir', provider: 'demo', text: 'hi' } })),
    ).toMatchObject({ status: 400, code: 'invalid_argument' });
    expect(await fail(s.client.api.run({ body: { path: s.p.userHome, provider: 'demo', text: '  ' } }))).toMatchObject({
      status: 400,
      code: 'invalid_body',
    });
    expect((await s.client.api.listSessions({})).sessions.length).toBe(before);
  });
});
