import { describe, it, expect, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROUTES, type RouteInput, type RouteName, type RouteOutput } from '../../src/server/contract/index.js';
import { ServerError } from '../../src/server/client/index.js';
import { Probe, isEvent, serve, type Served } from './helpers.js';
import { seedRealCliRows } from '../fakes/hermes/channel-rows.js';

vi.setConfig({ testTimeout: 180_000 });

/** Calls a route through the typed client and checks the answer against the route's own schema. */
function checked(s: Served, seen: Set<string>) {
  return async <N extends RouteName>(name: N, input?: RouteInput<N>): Promise<RouteOutput<N>> => {
    const out = await s.client.call(name, input);
    const def = ROUTES[name] as { response?: { safeParse(v: unknown): { success: boolean; error?: unknown } } };
    if (def.response) {
      const r = def.response.safeParse(out);
      expect(r.success, `${name}: ${String(r.error)}`).toBe(true);
    } else expect(typeof out, name).toBe('string');
    seen.add(name);
    return out;
  };
}

describe('every route, valid calls, answers that match the contract', () => {
  it('Hermes emulator and the demo agent through the whole HTTP API', async () => {
    const s = await serve({
      hermes: true,
      vars: { TALARIA_DEMO_SLOW_CHUNKS: '300', TALARIA_DEMO_SLOW_DELAY_MS: '10' },
    });
    const seen = new Set<string>();
    const call = checked(s, seen);
    writeFileSync(join(s.p.userHome, 'notes.txt'), 'hello\n');

    expect(await call('health')).toMatchObject({ ok: true, name: 'talaria' });
    expect(await call('me')).toMatchObject({ role: 'controller' });
    expect(await call('signIn')).toMatchObject({ role: 'controller' });
    expect(await call('signOut')).toEqual({ ok: true });
    const ready = await call('readiness');
    expect(ready.providers.find((p) => p.id === 'hermes')).toMatchObject({ ready: true });
    const providers = await call('providers');
    expect(providers.providers.map((p) => p.id)).toEqual(expect.arrayContaining(['hermes', 'demo']));
    const { workspace } = await call('openWorkspace', { body: { path: s.p.userHome } });
    expect((await call('workspaces')).workspaces.map((w) => w.id)).toEqual([workspace.id]);
    const bound = await call('bindProvider', { params: { id: workspace.id }, body: { provider: 'hermes' } });
    expect(bound.workspace.provider).toBe('hermes');
    const models = await call('workspaceModels', { params: { id: workspace.id } });
    expect(models.provider).toBe('hermes');
    expect(models.cached).toBe(false);
    expect((await call('workspaceModels', { params: { id: workspace.id } })).cached).toBe(true);
    // The throwaway session that read the catalog is not a stored session.
    expect((await call('listSessions')).sessions).toEqual([]);
    // Hermes' profiles, and the one this workspace's sessions use (none set: Hermes' active one).
    const profiles = await call('hermesProfiles', { query: { workspace: workspace.id } });
    expect(profiles.profiles.map((x) => x.name)).toContain('default');
    expect(profiles.workspace).toMatchObject({ own: false, ownName: expect.stringMatching(/^talaria-/) });
    const kept = await call('setWorkspaceProfile', { params: { id: workspace.id }, body: { profile: null } });
    expect(kept.workspace).toMatchObject({ provider: 'hermes' });
    expect(kept.workspace.profile).toBeUndefined();

    // A Hermes session: prompt over HTTP, the stream over /ws.
    const { snapshot } = await call('createSession', { params: { id: workspace.id }, body: {} });
    expect(snapshot.session.provider).toBe('hermes');
    const id = snapshot.session.id;
    const p = new Probe(s.server);
    await p.wait((m) => m.type === 'welcome');
    p.send({ type: 'subscribe', sessionId: id, since: snapshot.seq });
    await call('prompt', { params: { id }, body: { text: 'hello' } });
    await p.wait(isEvent(id, 'turn.ended'));
    const snap = await call('snapshot', { params: { id } });
    expect(snap.snapshot.thread.entries.length).toBeGreaterThan(1);
    expect(snap.snapshot.seq).toBe(p.events(id).at(-1)!.seq);
    const catalog = snap.snapshot.catalog as { models?: { current?: string; options?: { id: string }[] } } | undefined;
    const other = catalog?.models?.options?.find((o) => o.id !== catalog.models?.current);
    if (other) {
      expect(await call('setModel', { params: { id }, body: { modelId: other.id } })).toEqual({ ok: true });
      await p.wait(isEvent(id, 'choice.updated'));
    }
    expect((await call('listSessions', { query: { workspace: workspace.id } })).sessions.map((x) => x.id)).toEqual([
      id,
    ]);
    expect(await call('branches', { params: { id } })).toMatchObject({ current: id, tree: { id, children: [] } });
    const branch = await call('createBranch', { params: { id }, body: { back: 1 } });
    expect(branch.snapshot.origin).toBe('branched');
    expect((await call('queue', { params: { id } })).queue).toEqual([]);
    expect((await call('permissions', { params: { id } })).pending).toEqual([]);
    expect(await call('cancel', { params: { id } })).toEqual({ cancelled: false });
    const wire = await call('wireLog', { params: { id }, query: { limit: 2 } });
    expect(wire.frames.map((f) => f.seq)).toEqual([1, 2]);
    expect(wire.next).toBe(2);
    const md = await call('exportSession', { params: { id }, query: { format: 'md' } });
    expect(md).toContain('hello');
    JSON.parse(await call('exportSession', { params: { id }, query: { format: 'json' } }));
    const fixture = await call('exportSession', { params: { id }, query: { format: 'fixture' } });
    const imported = await call('importSession', { body: { text: fixture, title: 'imported' } });
    expect(imported.session).toMatchObject({ title: 'imported', live: false, state: 'stored' });
    const forked = await call('fork', { params: { id } });
    expect(forked.snapshot.origin).toBe('forked');
    expect((await call('archive', { params: { id }, body: { archived: true } })).session.archived).toBe(true);
    expect((await call('listSessions', { query: { archived: 'only' } })).sessions.map((x) => x.id)).toEqual([id]);
    await call('archive', { params: { id }, body: { archived: false } });
    expect((await call('openSession', { params: { id }, body: {} })).snapshot.session.live).toBe(true);

    // A demo session: mode, a permission answered with an edited rule, the audit log.
    const demo = (await call('createSession', { params: { id: workspace.id }, body: { provider: 'demo' } })).snapshot;
    const q = new Probe(s.server);
    await q.wait((m) => m.type === 'welcome');
    q.send({ type: 'subscribe', sessionId: demo.session.id });
    await call('prompt', { params: { id: demo.session.id }, body: { text: 'edit notes.txt' } });
    const asked = await q.wait(isEvent(demo.session.id, 'permission.asked'));
    const ask = asked.type === 'event' && asked.event.type === 'permission.asked' ? asked.event : undefined;
    const once = (ask!.options as { optionId: string; kind: string }[]).find((o) => o.kind === 'allow_once')!;
    const rule = { decision: 'allow' as const, toolKind: 'edit', pathGlob: join(s.p.userHome, 'notes.txt') };
    const answered = await call('answerPermission', {
      params: { id: demo.session.id, requestKey: ask!.requestKey },
      body: { optionId: once.optionId, rule },
    });
    expect(answered.answeredBy).toBe('serve');
    await q.wait(isEvent(demo.session.id, 'turn.ended'));
    const late = await s.client
      .call('answerPermission', {
        params: { id: demo.session.id, requestKey: ask!.requestKey },
        body: { optionId: once.optionId },
      })
      .catch((e: unknown) => e);
    expect(late).toBeInstanceOf(ServerError);
    expect((late as ServerError).code).toBe('conflict');
    expect(
      (await call('rules', { query: { scope: 'session', scopeId: demo.session.id } })).rules.map((r) => r.rule),
    ).toContainEqual(expect.objectContaining(rule));
    expect((await call('audit', { query: { session: demo.session.id } })).records).toEqual([
      expect.objectContaining({ answeredBy: 'serve', decidedBy: 'user' }),
    ]);
    // Usage: the Hermes session's figures from its state.db; the emulator's custom endpoint has no price.
    const usage = await call('usage', { query: { by: 'agent' } });
    expect(usage.problems).toEqual([]);
    expect(usage.sessions.find((u) => u.sessionId === id)).toMatchObject({
      from: 'hermes-state-db',
      cost: { status: 'unknown' },
      hermes: { costStatus: 'unknown' },
    });
    expect(usage.sessions.find((u) => u.sessionId === id)!.tokens.input).toBeGreaterThan(0);
    expect(usage.groups.find((g) => g.key === 'hermes')!.cost).toEqual({
      status: 'unknown',
      unpriced: expect.any(Number),
    });
    expect((await call('usage', { query: { by: 'day' } })).groups.map((g) => g.key)).toEqual([
      new Date().toISOString().slice(0, 10),
    ]);
    // Hermes sessions from other channels (the real cli rows of 0.18.2), read-only, and one continued.
    seedRealCliRows(s.p.hermesHome);
    const channels = await call('hermesSessions', { query: {} });
    expect(channels.profiles.map((x) => [x.profile, x.kind, x.sessions.map((h) => h.id)])).toEqual([
      ['default', 'ok', ['20261206_102436_e68017', '20261206_102453_d6981e']],
    ]);
    const one = await call('hermesSession', { params: { profile: 'default', id: '20261206_102453_d6981e' } });
    expect(one.entries).toHaveLength(5);
    const cont = await call('continueHermesSession', {
      params: { profile: 'default', id: '20261206_102436_e68017' },
      body: { provider: 'demo', workspace: s.p.userHome },
    });
    expect((await call('snapshot', { params: { id: cont.id } })).snapshot.session.provider).toBe('demo');
    await expect(s.client.call('hermesSession', { params: { profile: 'default', id: 'nope' } })).rejects.toMatchObject({
      status: 404,
    });
    await expect(s.client.call('hermesSessions', { query: { profile: 'Bad Name' } })).rejects.toMatchObject({
      status: 400,
    });
    await expect(
      s.client.call('continueHermesSession', { params: { profile: 'default', id: 'nope' }, body: {} }),
    ).rejects.toMatchObject({ status: 404 });
    const added = await call('addRule', {
      body: {
        scope: 'workspace',
        scopeId: workspace.id,
        rule: { decision: 'deny', toolKind: 'execute', command: 'rm *' },
      },
    });
    const updated = await call('updateRule', {
      params: { id: String(added.rule.id) },
      body: { rule: { decision: 'ask', toolKind: 'execute', command: 'rm *' } },
    });
    expect(updated.rule.rule.decision).toBe('ask');
    expect(await call('deleteRule', { params: { id: String(updated.rule.id) } })).toEqual({ ok: true });
    expect((await call('rules', { query: { scope: 'workspace', scopeId: workspace.id } })).rules).toEqual([]);

    // A queued prompt, edited then removed, on a running demo turn.
    await call('prompt', { params: { id: demo.session.id }, body: { text: 'slow' } });
    const queued = await call('prompt', { params: { id: demo.session.id }, body: { text: 'hello' } });
    expect(queued.queued).toBe(true);
    expect(
      (
        await call('editQueued', { params: { id: demo.session.id, item: queued.id }, body: { text: 'hello again' } })
      ).queue.map((x) => x.text),
    ).toEqual(['hello again']);
    expect((await call('removeQueued', { params: { id: demo.session.id, item: queued.id } })).queue).toEqual([]);
    expect(await call('cancel', { params: { id: demo.session.id } })).toEqual({ cancelled: true });
    expect(await call('steer', { params: { id: demo.session.id }, body: { text: 'hello' } })).toMatchObject({
      how: 'prompt',
    });
    expect(await call('setMode', { params: { id }, body: { modeId: 'accept_edits' } })).toEqual({ ok: true });
    await p.wait((m) => m.type === 'event' && m.event.type === 'choice.updated' && m.event.modeId === 'accept_edits');
    if (!other) seen.add('setModel');
    // A one-shot run (issue 16): the workspace, a new session and its prompt in one call.
    const ran = await call('run', { body: { path: s.p.userHome, provider: 'demo', text: 'hello' } });
    expect(ran.workspace.id).toBe(workspace.id);
    expect(ran.turn.queued).toBe(false);
    p.send({ type: 'subscribe', sessionId: ran.snapshot.session.id, since: ran.snapshot.seq });
    await p.wait(isEvent(ran.snapshot.session.id, 'turn.ended'));
    // The same, answered with the turn (NDJSON through the typed client: the whole stream as text).
    const streamed = (await call('runStream', { body: { path: s.p.userHome, provider: 'demo', text: 'hello' } }))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; workspace?: { id: string } });
    expect(streamed[0]).toMatchObject({ type: 'run', workspace: { id: workspace.id }, turn: { queued: false } });
    expect(streamed.some((m) => m.type === 'turn.ended')).toBe(true);
    p.close();
    q.close();
    expect([...Object.keys(ROUTES)].filter((n) => !seen.has(n))).toEqual([]);
  });

  it('bad input gets a clear error: a workspace that is not a directory, an unknown agent, session, rule', async () => {
    const s = await serve();
    const err = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => e as ServerError,
      );
    expect(await err(s.client.api.openWorkspace({ body: { path: join(s.p.userHome, 'missing') } }))).toMatchObject({
      status: 400,
      code: 'invalid_argument',
    });
    expect(await err(s.client.api.openWorkspace({ body: { path: 'relative/dir' } }))).toMatchObject({
      status: 400,
      code: 'invalid_argument',
    });
    writeFileSync(join(s.p.userHome, 'file.txt'), 'x');
    expect(await err(s.client.api.openWorkspace({ body: { path: join(s.p.userHome, 'file.txt') } }))).toMatchObject({
      code: 'invalid_argument',
    });
    const { workspace } = await s.client.api.openWorkspace({ body: { path: s.p.userHome } });
    expect(
      await err(s.client.api.createSession({ params: { id: workspace.id }, body: { provider: 'nope' } })),
    ).toMatchObject({
      code: 'invalid_argument',
      fix: expect.stringContaining('/api/providers'),
    });
    expect(await err(s.client.api.snapshot({ params: { id: 'nope' } }))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    // Exports read the store only: an id is never a path.
    expect(
      await err(s.client.api.exportSession({ params: { id: '../../../../etc/passwd' }, query: { format: 'md' } })),
    ).toMatchObject({ status: 404 });
    expect(await err(s.client.api.deleteRule({ params: { id: '999' } }))).toMatchObject({ status: 404 });
    expect(await err(s.client.api.importSession({ body: { text: 'not a fixture' } }))).toMatchObject({
      status: expect.any(Number),
    });
    expect((await s.client.api.health()).ok).toBe(true);
  });
});
