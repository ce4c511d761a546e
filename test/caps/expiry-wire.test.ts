/**
 * share() over the wire under an expiring parent (`talaria caps mint --expires 5s`): an invalid
 * expiresIn is refused with a reason, a valid child expires with the parent — its live object too.
 */
import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import { connectCaps, E, type CapsSession } from '../../src/caps/index.js';
import { testHost } from './helpers.js';

vi.setConfig({ testTimeout: 60_000 });

describe('caps: share under an expiring parent', () => {
  it('share({expiresIn: NaN | -1 | 0 | Infinity}) is refused; a child asking for more than its parent has expires with it, live objects included', async () => {
    let now = Date.now();
    const t = await testHost({ host: { now: () => now } });
    const launcher = await connectCaps<import('../../src/caps/index.js').CapsLauncher>(t.url, t.launcher);
    const s = await E(launcher.root).newSession();
    const id = (await E(s).info()).id;
    const parent = t.host.refs.mint({ facet: 'controller', target: id, expiresAt: now + 5_000 });
    const c = await connectCaps<CapsSession>(t.url, parent.uri);
    for (const bad of [NaN, -1, 0, Infinity, -Infinity]) {
      await expect(E(c.root).share({ facet: 'reader', expiresIn: bad }), String(bad)).rejects.toThrow(
        /invalid_argument: expiresIn/,
      );
    }
    const uri = await E(c.root).share({ facet: 'reader', expiresIn: 3_600_000 });
    expect(t.host.refs.get(t.host.refs.idOf(uri)!)!.expiresAt).toBe(now + 5_000);
    const child = await connectCaps<CapsSession>(t.url, uri);
    expect((await E(child.root).info()).id).toBe(id);
    now += 5_000;
    await expect(E(child.root).info()).rejects.toThrow(/ref_expired/);
    await expect(child.fetch(uri)).rejects.toThrow(/ref_expired/);
    expect(t.host.refs.list().filter((r) => r.parentId === parent.row.id && r.expiresAt === undefined)).toEqual([]);
    await child.close();
    await c.close();
    await launcher.close();
  });
});
