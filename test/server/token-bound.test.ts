/** The token registry of live connections: a keep-alive socket's per-request bindings leave nothing behind. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { TokenBound } from '../../src/server/token-bound.js';

describe('TokenBound', () => {
  it('each answer on a keep-alive socket binds and releases: no close listeners pile up; a revoke ends only the revoked', () => {
    const bound = new TokenBound();
    const socket = new PassThrough();
    const base = socket.listenerCount('close');
    const me = { id: 'a', role: 'controller' as const };
    for (let i = 0; i < 50; i++) bound.bind(socket, me)();
    expect(socket.listenerCount('close')).toBe(base);
    expect(bound.size).toBe(0);
    let closed = 0;
    bound.bind(socket, me, () => void closed++);
    const other = new PassThrough();
    bound.bind(other, { id: 'b', role: 'observer' }, () => void closed++);
    expect(bound.revoke((id) => id === 'b')).toBe(1);
    expect([closed, bound.size]).toEqual([1, 1]);
  });
});
