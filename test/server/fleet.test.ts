/**
 * The server in a fleet, with a fake fleet (the real one is test/fleet/): a live session's status
 * goes to the fleet as it changes; `?fleet=true` adds host and presence (another host's session
 * from the fleet, this host's live one from the hub); the fleet's changes reach `/ws` as
 * `fleet.updated`. Without a fleet the list is what it always was.
 */
import { describe, expect, it, vi } from 'vitest';
import type { FleetStatus } from '../../src/server/contract/index.js';
import type { ServerFleet } from '../../src/server/index.js';
import { demoSession, Probe, serve } from './helpers.js';

function fakeFleet() {
  const told: [string, string][] = [];
  const fns = new Set<() => void>();
  const remote: { id: string; hostId: string; status: FleetStatus }[] = [];
  const fleet: ServerFleet = {
    hostId: 'h_self',
    hosts: () => [
      { id: 'h_self', name: 'box-a', online: true, self: true },
      { id: 'h_other', name: 'box-b', online: false, self: false },
    ],
    sessions: () => remote,
    onChange: (fn) => (fns.add(fn), () => void fns.delete(fn)),
    sessionStatus: (id, status) => void told.push([id, status]),
  };
  return { fleet, told, remote, changed: () => fns.forEach((fn) => fn()) };
}

describe('the server in a fleet', () => {
  it('reports live status, lists with host and presence, and tells /ws of fleet changes', async () => {
    const f = fakeFleet();
    const s = await serve({ fleet: f.fleet });
    const id = await demoSession(s);
    await s.client.api.prompt({ params: { id }, body: { text: 'hello' } });
    await vi.waitFor(() => expect(f.told.filter(([x]) => x === id).map(([, st]) => st)).toContain('running'));
    await vi.waitFor(() => expect(f.told.filter(([x]) => x === id).at(-1)?.[1]).toBe('idle'));

    // Another host's session: a row of the shared store with a presence row there.
    const other = s.harness.store.sessions.create({ provider: 'demo', cwd: '/elsewhere' }).id;
    f.remote.push({ id: other, hostId: 'h_other', status: 'offline' });
    const { sessions } = await s.client.api.listSessions({ query: { fleet: 'true' } });
    expect(sessions.find((x) => x.id === id)).toMatchObject({ host: { id: 'h_self', self: true }, presence: 'idle' });
    expect(sessions.find((x) => x.id === other)).toMatchObject({
      host: { name: 'box-b', online: false },
      presence: 'offline',
    });
    const plain = await s.client.api.listSessions({ query: {} });
    expect(plain.sessions.find((x) => x.id === other)).not.toHaveProperty('host');

    const probe = new Probe(s.server);
    await probe.wait((m) => m.type === 'welcome');
    f.changed();
    await probe.next((m) => m.type === 'fleet.updated');
    probe.close();
  });
});
