/** The fleet view as facts of the caps face's presence dataspace: asserted, re-asserted on change, retracted on close. */
import { describe, expect, it } from 'vitest';
import { Dataspace } from '../../src/caps/dataspace.js';
import { publishFleetFacts, type FleetSource } from '../../src/fleet/presence-facts.js';
import type { FleetHostState, FleetSessionState } from '../../src/fleet/view.js';

const host = (id: string, online: boolean, self = false): FleetHostState => ({
  id,
  name: `box-${id}`,
  url: undefined,
  online,
  self,
  agents: [{ id: 'demo' }],
  load: { sessions: 1 },
  heartbeatAt: 1,
  leaseUntil: 2,
});

describe('fleet facts in the presence dataspace', () => {
  it('hosts and other hosts’ sessions, kept true as the view changes', () => {
    let hosts = [host('h_a', true, true), host('h_b', true)];
    let sessions: FleetSessionState[] = [
      { id: 's1', hostId: 'h_b', status: 'running' },
      { id: 's2', hostId: 'h_a', status: 'idle' },
    ];
    const fns = new Set<() => void>();
    const src: FleetSource = {
      hostId: 'h_a',
      hosts: () => hosts,
      sessions: () => sessions,
      onChange: (fn) => (fns.add(fn), () => void fns.delete(fn)),
    };
    const ds = new Dataspace();
    const seen: string[] = [];
    ds.observe(
      { type: 'session' },
      {
        added: (_h, f) => seen.push(`+${String(f.id)}:${String(f.status)}`),
        removed: (_h, f) => seen.push(`-${String(f.id)}:${String(f.status)}`),
      },
    );
    const online = new Map<string, boolean>();
    ds.observe(
      { type: 'host' },
      {
        added: (_h, f) => online.set(f.id as string, f.online as boolean),
        removed: () => undefined,
      },
    );
    const stop = publishFleetFacts(ds, src);
    // This host's own sessions are session-facts.ts's, not asserted twice.
    expect(seen).toEqual(['+s1:running']);
    expect(online).toEqual(
      new Map([
        ['h_a', true],
        ['h_b', true],
      ]),
    );
    hosts = [host('h_a', true, true), host('h_b', false)];
    sessions = [{ id: 's1', hostId: 'h_b', status: 'offline' }, sessions[1]!];
    for (const fn of fns) fn();
    expect(seen).toEqual(['+s1:running', '-s1:running', '+s1:offline']);
    expect(online.get('h_b')).toBe(false);
    const before = ds.size;
    for (const fn of fns) fn();
    expect(ds.size).toBe(before);
    stop();
    expect(ds.countOf('fleet')).toBe(0);
    expect(fns.size).toBe(0);
  });
});
