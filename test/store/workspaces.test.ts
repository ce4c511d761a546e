import { describe, it, expect } from 'vitest';
import { freshStore } from './helpers.js';

describe('workspaces', () => {
  it('ensure creates once per path (resolved), then returns the same row', () => {
    let t = 1000;
    const s = freshStore({ now: () => t++ });
    const a = s.workspaces.ensure({ path: '/work/proj/', defaultProvider: 'hermes' });
    expect(a).toMatchObject({ path: '/work/proj', name: 'proj', defaultProvider: 'hermes', createdAt: 1000, updatedAt: 1000 });
    expect(a.profile).toBeUndefined();
    const b = s.workspaces.ensure({ path: '/work/proj', name: 'ignored' });
    expect(b).toEqual(a);
    expect(s.workspaces.getByPath('/work/./proj')).toEqual(a);
    expect(s.workspaces.list()).toEqual([a]);
  });

  it('update patches fields, null clears, unknown id is undefined', () => {
    let t = 1;
    const s = freshStore({ now: () => t++ });
    const w = s.workspaces.ensure({ path: '/a', profile: 'work' });
    const u = s.workspaces.update(w.id, { name: 'Alpha', defaultProvider: 'claude' });
    expect(u).toMatchObject({ name: 'Alpha', defaultProvider: 'claude', profile: 'work' });
    expect(u!.updatedAt).toBeGreaterThan(w.updatedAt);
    const v = s.workspaces.update(w.id, { profile: null });
    expect(v!.profile).toBeUndefined();
    expect(v!.name).toBe('Alpha');
    expect(s.workspaces.update('nope', { name: 'x' })).toBeUndefined();
    expect(s.workspaces.get('nope')).toBeUndefined();
  });
});
