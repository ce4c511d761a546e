/**
 * One live session per id for both faces of one server: a session prompted through /captp is the
 * session /ws and HTTP clients see live and prompt (and the reverse), on one agent process with
 * one agent session — no second session/load, no second process.
 */
import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import {
  CapsHost,
  capsUpgradeHandler,
  connectCaps,
  E,
  type CapsLauncher,
  type CapsSession,
} from '../../src/caps/index.js';
import { isEvent, serve, watching, type Served } from '../server/helpers.js';

vi.setConfig({ testTimeout: 120_000 });

async function bothFaces(): Promise<Served & { caps: CapsHost; url: string }> {
  const s = await serve();
  const caps = new CapsHost({ harness: s.harness });
  const up = capsUpgradeHandler(caps);
  s.server.mount('/captp', (req, socket, head) => up.handleUpgrade(req, socket, head));
  return { ...s, caps, url: `${s.server.origin.replace(/^http/, 'ws')}/captp` };
}

/** Agent processes and the agent sessions bound on them. */
function agents(s: Served): { processes: number; sessions: number } {
  const all = s.harness.host.agents().filter((a) => a.state === 'running');
  return { processes: new Set(all.map((a) => a.pid)).size, sessions: all.reduce((n, a) => n + a.sessions.length, 0) };
}

describe('one live-session registry for /captp and /ws', () => {
  it('a session made and prompted through /captp is live for /ws and HTTP, which prompt the same agent session', async () => {
    const s = await bothFaces();
    const c = await connectCaps<CapsLauncher>(s.url, s.caps.mintLauncher(s.p.userHome, { provider: 'demo' }).uri, {
      token: s.server.token,
    });
    const session = await E(c.root).newSession();
    const id = (await E(session).info()).id;
    expect((await E(E(session).prompt('hello from caps')).result()).stopReason).toBe('end_turn');

    // /api/sessions says it is live (idle), not merely stored.
    const listed = await s.client.api.listSessions({ query: {} });
    expect(listed.sessions.find((x) => x.id === id)).toMatchObject({ live: true, state: 'idle' });
    const probe = await watching(s.server, id);
    await s.client.api.prompt({ params: { id }, body: { text: 'hello from http' } });
    await probe.wait(isEvent(id, 'turn.ended'));
    expect(s.server.hub.get(id)!.hs).toBe(s.caps.live.get(id)!.hs);
    expect(agents(s)).toEqual({ processes: 1, sessions: 1 });
    await c.close();
    // The caps face shutting down leaves the session the server's clients still hold open.
    await s.caps.close();
    expect(s.server.hub.get(id)!.hs.state).toBe('idle');
    const turns = probe.events(id).filter((e) => e.type === 'turn.ended').length;
    await s.client.api.prompt({ params: { id }, body: { text: 'still here' } });
    await probe.wait(() => probe.events(id).filter((e) => e.type === 'turn.ended').length > turns);
    expect(agents(s)).toEqual({ processes: 1, sessions: 1 });
    probe.close();
  });

  it('a session made and prompted over HTTP is the one a /captp controller prompts, seen by /ws', async () => {
    const s = await bothFaces();
    const { workspace } = await s.client.api.openWorkspace({ body: { path: s.p.userHome } });
    const { snapshot } = await s.client.api.createSession({ params: { id: workspace.id }, body: { provider: 'demo' } });
    const id = snapshot.session.id;
    const probe = await watching(s.server, id);
    await s.client.api.prompt({ params: { id }, body: { text: 'hello from http' } });
    await probe.wait(isEvent(id, 'turn.ended'));

    const ref = s.caps.refs.mint({ facet: 'controller', target: id }).uri;
    const c = await connectCaps<CapsSession>(s.url, ref, { token: s.server.token });
    const ended = probe.events(id).filter((e) => e.type === 'turn.ended').length;
    expect((await E(E(c.root).prompt('hello from caps')).result()).stopReason).toBe('end_turn');
    // The caps turn went out to /ws subscribers of the same session.
    await probe.wait(() => probe.events(id).filter((e) => e.type === 'turn.ended').length > ended);
    expect(s.caps.live.get(id)!.hs).toBe(s.server.hub.get(id)!.hs);
    expect(agents(s)).toEqual({ processes: 1, sessions: 1 });
    probe.close();
    await c.close();
    await s.caps.close();
  });
});
