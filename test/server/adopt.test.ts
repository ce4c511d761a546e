/**
 * Opening a session only the agent lists (`agent=true`, `stored: false`) over HTTP: the agent
 * loads it (its history replayed), Talaria stores it from then on, and it works like any other.
 */
import { describe, expect, it, vi } from 'vitest';
import { makeHarness, place } from '../harness/helpers.js';
import { raw, serve } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });

/** A demo-agent session made by another client of the same agent (its own Talaria home): this server never stored it. */
async function foreignSession(p: ReturnType<typeof place>): Promise<string> {
  const other = makeHarness({ ...p, home: place().home });
  const foreign = await other.workspaces.open(p.userHome).newSession({ provider: 'demo' });
  await foreign.prompt('made elsewhere').result;
  const id = foreign.agentSessionId;
  await other.close();
  return id;
}

describe.concurrent('POST /api/sessions/:id/open for a session only the agent lists', () => {
  it('the agent loads it with its history; Talaria stores it, lists it as stored and prompts it', async () => {
    const p = place();
    const foreignId = await foreignSession(p);
    const s = await serve({ p });
    const { workspace } = await s.client.api.openWorkspace({ body: { path: p.userHome } });
    await s.client.api.bindProvider({ params: { id: workspace.id }, body: { provider: 'demo' } });
    const listed = await s.client.api.listSessions({ query: { workspace: workspace.id, agent: 'true' } });
    const row = listed.sessions.find((x) => x.id === foreignId)!;
    expect(row).toMatchObject({ stored: false, atAgent: true, workspaceId: workspace.id });

    const { snapshot } = await s.client.api.openSession({ params: { id: row.id }, body: { workspace: row.workspaceId! } });
    expect(snapshot.origin).toBe('loaded');
    expect(snapshot.session).toMatchObject({ stored: true, live: true, agentSessionId: foreignId, workspaceId: workspace.id });
    expect(JSON.stringify(snapshot.thread.entries)).toContain('made elsewhere');

    // Stored from now on: listed once, as stored, under Talaria's id; the agent's id finds it too.
    const after = await s.client.api.listSessions({ query: { workspace: workspace.id, agent: 'true' } });
    expect(after.sessions.filter((x) => x.id === snapshot.session.id || x.id === foreignId)).toEqual([expect.objectContaining({ id: snapshot.session.id, stored: true })]);
    const again = await s.client.api.openSession({ params: { id: foreignId }, body: {} });
    expect(again.snapshot.session.id).toBe(snapshot.session.id);

    await s.client.api.prompt({ params: { id: snapshot.session.id }, body: { text: 'and here' } });
    const ls = s.server.hub.get(snapshot.session.id)!;
    await ls.hs.session.running?.result;
    ls.hs.flush();
    expect(JSON.stringify(s.harness.store.entries.list(snapshot.session.id))).toContain('and here');
  });

  it('clear errors, and nothing stored: no workspace named, an unknown workspace, an id the agent does not have', async () => {
    const s = await serve();
    const { workspace } = await s.client.api.openWorkspace({ body: { path: s.p.userHome } });
    await s.client.api.bindProvider({ params: { id: workspace.id }, body: { provider: 'demo' } });
    const open = (id: string, body: unknown) =>
      raw(s.server, `/api/sessions/${id}/open`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    const noWs = await open('agent-only-1', {});
    expect(noWs.status).toBe(404);
    expect(noWs.json.fix).toMatch(/workspace/);
    const badWs = await open('agent-only-1', { workspace: 'nope' });
    expect(badWs.status).toBe(404);
    expect(badWs.json.message).toMatch(/no workspace nope/);
    const unknown = await open('never-made-anywhere', { workspace: workspace.id });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: 'not_found' });
    expect(unknown.json.message).toMatch(/never-made-anywhere/);
    expect(s.harness.store.sessions.list({ workspaceId: workspace.id })).toEqual([]);
  });
});
