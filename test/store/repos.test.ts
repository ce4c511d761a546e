/**
 * The repositories the faces fill (caps references, the server's event log, branches, leases),
 * row for row on both backends; their meaning is tested where it lives (src/caps, src/server,
 * src/harness) on SQLite.
 */
import { describe, expect, it } from 'vitest';
import { BACKENDS } from './backends.js';

describe.each(BACKENDS)('repositories the faces fill ($name)', (backend) => {
  it('caps references: rows, chains, revoking a tree once, one host key', () => {
    const s = backend.fresh();
    const ref = (id: string, parentId?: string, expiresAt?: number) => ({
      id,
      hash: `h-${id}`,
      kind: 'session',
      facet: 'reader',
      target: 't',
      methods: ['read'],
      expiresAt,
      parentId,
      label: undefined,
      createdAt: 1,
    });
    s.capsRefs.insert(ref('a', undefined, 500));
    s.capsRefs.insert(ref('b', 'a', 900));
    s.capsRefs.insert(ref('c', 'b'));
    expect(s.capsRefs.getByHash('h-b')).toMatchObject({ id: 'b', parentId: 'a', methods: ['read'], expiresAt: 900 });
    expect(s.capsRefs.chain('c')).toEqual({ n: 3, expiresAt: 500, revokedAt: undefined });
    expect(s.capsRefs.chain('nope')).toEqual({ n: 0, expiresAt: undefined, revokedAt: undefined });
    expect(s.capsRefs.revokeTree('b', 7).sort()).toEqual(['b', 'c']);
    expect(s.capsRefs.revokeTree('b', 8)).toEqual([]);
    expect(s.capsRefs.chain('c').revokedAt).toBe(7);
    expect(s.capsRefs.list().map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(s.capsRefs.hostKey()).toBeUndefined();
    s.capsRefs.setHostKey('k1');
    s.capsRefs.setHostKey('k2');
    expect(s.capsRefs.hostKey()).toBe('k1');
    s.capsRefs.insert({ ...ref('ctl'), facet: 'controller', methods: ['x'] });
    s.capsRefs.replaceControllerMethods('["x"]', '["x","y"]');
    expect(s.capsRefs.get('ctl')?.methods).toEqual(['x', 'y']);
  });

  it('the event log: head, pages after a seq, trimming', () => {
    const s = backend.fresh();
    expect(s.events.head('s')).toEqual({ last: 0, first: 1, reset: 0 });
    const ev = (seq: number, type = 'x') => ({ sessionId: 's', seq, at: 100 + seq, type, data: `{"n":${seq}}` });
    s.events.append([ev(1), ev(2, 'session.live'), ev(3), ev(4)]);
    expect(s.events.head('s')).toEqual({ last: 4, first: 1, reset: 2 });
    expect(s.events.after('s', 1, 2)).toEqual([ev(2, 'session.live'), ev(3)]);
    s.events.dropBefore('s', 3);
    expect(s.events.head('s')).toEqual({ last: 4, first: 3, reset: 0 });
    expect(() => s.events.append([ev(4)])).toThrow(/UNIQUE/);
  });

  it('branches in insertion order (ties of created_at too), children and origin', () => {
    const s = backend.fresh({ now: () => 5 });
    for (const id of ['root', 'r1', 'r2']) s.sessions.create({ id, provider: 'p', cwd: '/' });
    s.branches.add({ sessionId: 'root', parentId: 'root', reason: 'overflow', provider: 'p', agentSessionId: 'a2' });
    s.branches.add({ sessionId: 'r2', parentId: 'root', reason: 'rewind', provider: 'p', forkEntryId: 'u3' });
    s.branches.add({ sessionId: 'r1', parentId: 'root', reason: 'continue', provider: 'p', fromProvider: 'q' });
    expect(s.branches.of('root')).toMatchObject([{ reason: 'overflow', agentSessionId: 'a2', createdAt: 5 }]);
    expect(s.branches.children('root').map((b) => b.sessionId)).toEqual(['r2', 'r1']);
    expect(s.branches.origin('r1')).toMatchObject({ parentId: 'root', fromProvider: 'q' });
    expect(s.branches.origin('root')).toBeUndefined();
  });

  it('leases: taken, refused while alive, taken over when dead, released by the owner only', () => {
    const s = backend.fresh({ now: () => 9 });
    s.sessions.create({ id: 's', provider: 'p', cwd: '/' });
    const me = (owner: string, pid = 1) => ({ owner, pid, host: 'h' });
    expect(s.leases.acquire('s', me('a'), () => true)).toBeUndefined();
    expect(s.leases.acquire('s', me('b'), () => true)).toMatchObject({ owner: 'a', acquiredAt: 9 });
    expect(s.leases.acquire('s', me('b', 2), () => false)).toBeUndefined();
    expect(s.leases.get('s')).toEqual({ sessionId: 's', owner: 'b', pid: 2, host: 'h', acquiredAt: 9 });
    expect(s.leases.release('s', 'a')).toBe(false);
    expect(s.leases.release('s', 'b')).toBe(true);
    expect(s.leases.get('s')).toBeUndefined();
  });
});
