/**
 * Opening a session only the agent lists (`agent=true`, `stored: false`) over HTTP: the agent
 * loads it (its history replayed) or, when it cannot load, resumes it (context kept, nothing
 * replayed); Talaria stores it from then on, and it works like any other.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { makeHarness, place } from '../harness/helpers.js';
import { raw, serve } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

vi.setConfig({ testTimeout: 120_000 });

const SDK_AGENT = fileURLToPath(new URL('../fakes/sdk-agent.ts', import.meta.url));

/** A server whose workspace is bound to the SDK fake agent, which already holds session `old-1` (made before Talaria). */
async function withSeededAgent(env: Record<string, string>) {
  const p = place();
  const agentEnv = { SDK_AGENT_SEED: 'old-1', SDK_AGENT_SEED_CWD: p.userHome, ...env };
  writeFileSync(
    join(p.home, 'config.json'),
    JSON.stringify({
      agents: { fake: { command: process.execPath, args: nodeArgs(SDK_AGENT), env: agentEnv } },
    }),
  );
  const s = await serve({ p });
  const { workspace } = await s.client.api.openWorkspace({ body: { path: p.userHome } });
  await s.client.api.bindProvider({ params: { id: workspace.id }, body: { provider: 'fake' } });
  const listed = await s.client.api.listSessions({ query: { workspace: workspace.id, agent: 'true' } });
  expect(listed.sessions).toEqual([expect.objectContaining({ id: 'old-1', stored: false, atAgent: true })]);
  return { s, workspace };
}

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

    const { snapshot } = await s.client.api.openSession({
      params: { id: row.id },
      body: { workspace: row.workspaceId! },
    });
    expect(snapshot.origin).toBe('loaded');
    expect(snapshot.session).toMatchObject({
      stored: true,
      live: true,
      agentSessionId: foreignId,
      workspaceId: workspace.id,
    });
    expect(JSON.stringify(snapshot.thread.entries)).toContain('made elsewhere');

    // Stored from now on: listed once, as stored, under Talaria's id; the agent's id finds it too.
    const after = await s.client.api.listSessions({ query: { workspace: workspace.id, agent: 'true' } });
    expect(after.sessions.filter((x) => x.id === snapshot.session.id || x.id === foreignId)).toEqual([
      expect.objectContaining({ id: snapshot.session.id, stored: true }),
    ]);
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
      raw(s.server, `/api/sessions/${id}/open`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

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

  it('an agent that cannot load but can resume: resumed (nothing replayed, a notice says so), stored, and prompted', async () => {
    const { s, workspace } = await withSeededAgent({ SDK_AGENT_NO_LOAD: '1' });
    const { snapshot } = await s.client.api.openSession({ params: { id: 'old-1' }, body: { workspace: workspace.id } });
    expect(snapshot.origin).toBe('resumed');
    // Named as the agent's list named it (nothing replayed could name it).
    expect(snapshot.session).toMatchObject({
      stored: true,
      live: true,
      agentSessionId: 'old-1',
      provider: 'fake',
      title: 't old-1',
    });
    expect(s.harness.store.sessions.get(snapshot.session.id)?.title).toBe('t old-1');
    const text = JSON.stringify(snapshot.thread.entries);
    expect(text).not.toContain('before Talaria');
    expect(snapshot.thread.entries).toEqual([
      expect.objectContaining({ kind: 'notice', code: 'history_not_replayed' }),
    ]);
    const methods = s.harness.store.wire
      .rows(snapshot.session.id)
      .map((r) => (JSON.parse(r.msg) as { method?: string }).method);
    expect(methods).toContain('session/resume');
    expect(methods).not.toContain('session/load');

    await s.client.api.prompt({ params: { id: snapshot.session.id }, body: { text: 'after resume' } });
    const ls = s.server.hub.get(snapshot.session.id)!;
    await ls.hs.session.running?.result;
    ls.hs.flush();
    expect(JSON.stringify(s.harness.store.entries.list(snapshot.session.id))).toContain('after resume');
    const after = await s.client.api.listSessions({ query: { workspace: workspace.id, agent: 'true' } });
    expect(after.sessions).toEqual([expect.objectContaining({ id: snapshot.session.id, stored: true })]);
  });

  it('an agent that can neither load nor resume: 409 with a fix, and nothing stored', async () => {
    const { s, workspace } = await withSeededAgent({ SDK_AGENT_NO_LOAD: '1', SDK_AGENT_NO_RESUME: '1' });
    const r = await raw(s.server, '/api/sessions/old-1/open', {
      method: 'POST',
      body: JSON.stringify({ workspace: workspace.id }),
    });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ code: 'conflict' });
    expect(r.json.message).toMatch(/can neither load nor resume sessions.*old-1/);
    expect(r.json.fix).toMatch(/new session/);
    expect(s.harness.store.sessions.list({ workspaceId: workspace.id })).toEqual([]);
  });
});
