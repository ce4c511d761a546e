import { describe, it, expect, vi } from 'vitest';
import { Probe, isEvent, serve } from './helpers.js';

vi.setConfig({ testTimeout: 60_000 });

describe.concurrent('talaria serve: a session end to end over HTTP and /ws (demo agent)', () => {
  it('open a workspace, create a session, prompt; a subscriber gets the snapshot then every event in seq order', async () => {
    const { p, server, client } = await serve();
    const { workspace } = await client.api.openWorkspace({ body: { path: p.userHome } });
    expect(workspace.path).toBe(p.userHome);
    const { snapshot } = await client.api.createSession({ params: { id: workspace.id }, body: { provider: 'demo' } });
    expect(snapshot.session).toMatchObject({ provider: 'demo', live: true, state: 'idle' });
    const probe = new Probe(server);
    await probe.wait((m) => m.type === 'welcome');
    probe.send({ type: 'subscribe', sessionId: snapshot.session.id });
    const first = await probe.wait((m) => m.type === 'snapshot');
    // The agent may still announce commands/info after session/new answered: the subscriber's snapshot
    // is at least as new as the creation one, and every later event follows it without a gap.
    const base = first.type === 'snapshot' ? first.snapshot.seq : -1;
    expect(base).toBeGreaterThanOrEqual(snapshot.seq);
    await probe.wait((m) => m.type === 'synced');
    const r = await client.api.prompt({ params: { id: snapshot.session.id }, body: { text: 'hello there' } });
    expect(r.queued).toBe(false);
    await probe.wait(isEvent(snapshot.session.id, 'turn.ended'));
    const seqs = probe.events(snapshot.session.id).map((e) => e.seq);
    expect(seqs[0]).toBe(base + 1);
    expect(seqs).toEqual(seqs.map((_, i) => base + 1 + i));
    const types = probe.events(snapshot.session.id).map((e) => e.type);
    expect(types).toContain('turn.started');
    expect(types).toContain('entry.added');
    expect(types).toContain('attention');
    const after = await client.api.snapshot({ params: { id: snapshot.session.id } });
    expect(after.snapshot.seq).toBe(seqs.at(-1));
    probe.close();
  });
});
