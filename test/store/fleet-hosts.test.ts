/** Migration 011: a fleet's host rows with their lease, sessions' creating host, live presence. */
import { describe, expect, it } from 'vitest';
import { BACKENDS } from './backends.js';

const host = (id: string, at: number) => ({
  id,
  name: `box-${id}`,
  url: `https://${id}.example`,
  publicKey: `key-${id}`,
  agents: [{ id: 'demo', ready: true }],
  load: { sessions: 0 },
  startedAt: at,
  heartbeatAt: at,
  leaseUntil: at + 15_000,
});

describe.each(BACKENDS)('fleet hosts and session presence ($name)', (backend) => {
  it('registers, heartbeats, expires and revokes a host row', () => {
    const s = backend.fresh();
    s.fleetHosts.register(host('h_a', 1_000));
    s.fleetHosts.register({ ...host('h_b', 1_000), url: undefined });
    expect(s.fleetHosts.list().map((h) => h.id)).toEqual(['h_a', 'h_b']);
    expect(s.fleetHosts.get('h_b')).toMatchObject({ url: undefined, revokedAt: undefined, leaseUntil: 16_000 });
    expect(s.fleetHosts.heartbeat('h_a', 5_000, 20_000, [], { sessions: 2 })).toBe(true);
    expect(s.fleetHosts.get('h_a')).toMatchObject({
      heartbeatAt: 5_000,
      leaseUntil: 20_000,
      load: { sessions: 2 },
      agents: [],
    });
    expect(s.fleetHosts.heartbeat('h_nobody', 5_000, 20_000, [], {})).toBe(false);
    expect(s.fleetHosts.expire('h_a', 6_000)).toBe(true);
    expect(s.fleetHosts.get('h_a')!.leaseUntil).toBe(6_000);
    expect(s.fleetHosts.revoke('h_b', 7_000)).toBe(true);
    expect(s.fleetHosts.revoke('h_b', 8_000)).toBe(false);
    // A restart re-registers with a new lease; its revocation stays.
    s.fleetHosts.register(host('h_b', 9_000));
    expect(s.fleetHosts.get('h_b')).toMatchObject({ revokedAt: 7_000, startedAt: 9_000 });
    s.close();
  });

  it('presence names the creating host on the session and closes a stopped host’s sessions', () => {
    const s = backend.fresh();
    const one = s.sessions.create({ provider: 'demo', cwd: '/w' }).id;
    const two = s.sessions.create({ provider: 'demo', cwd: '/w' }).id;
    expect(s.presence.hostOf(one)).toBeUndefined();
    expect(s.presence.set(one, 'h_a', 'running', 10)).toBe(true);
    expect(s.presence.set(two, 'h_a', 'idle', 11)).toBe(true);
    expect(s.presence.set('no-such-session', 'h_a', 'idle', 11)).toBe(false);
    expect(s.presence.get(one)).toEqual({ sessionId: one, hostId: 'h_a', status: 'running', updatedAt: 10 });
    // Another host running it later does not become its creator.
    s.presence.set(one, 'h_b', 'idle', 12);
    expect(s.presence.hostOf(one)).toBe('h_a');
    expect(s.presence.closeHost('h_a', 13)).toEqual([two]);
    expect(s.presence.list().map((p) => [p.hostId, p.status])).toEqual(
      [one, two].sort().map((id) => (id === one ? ['h_b', 'idle'] : ['h_a', 'closed'])),
    );
    expect(() => s.presence.set(one, 'h_a', 'bogus' as never, 14)).toThrow();
    s.close();
  });

  it('notify is a no-op without PostgreSQL, a statement with it', () => {
    const s = backend.fresh();
    expect(() => s.transaction(() => s.notify('talaria_fleet', '{"kind":"host","id":"h_a"}'))).not.toThrow();
    s.close();
  });
});
