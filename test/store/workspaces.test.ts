import { describe, it, expect } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/index.js';
import { createWorkspacesRepo } from '../../src/store/workspaces.js';
import { rawDb } from '../../src/store/sqlite.js';
import { BACKENDS } from './backends.js';

describe.each(BACKENDS)('workspaces ($name)', (backend) => {
  it('ensure creates once per path (resolved), then returns the same row', () => {
    let t = 1000;
    const s = backend.fresh({ now: () => t++ });
    const a = s.workspaces.ensure({ path: '/work/proj/', defaultProvider: 'hermes' });
    expect(a).toMatchObject({
      path: '/work/proj',
      name: 'proj',
      defaultProvider: 'hermes',
      createdAt: 1000,
      updatedAt: 1000,
    });
    expect(a.profile).toBeUndefined();
    const b = s.workspaces.ensure({ path: '/work/proj', name: 'ignored' });
    expect(b).toEqual(a);
    expect(s.workspaces.getByPath('/work/./proj')).toEqual(a);
    expect(s.workspaces.list()).toEqual([a]);
  });

  it('update patches fields, null clears, unknown id is undefined', () => {
    let t = 1;
    const s = backend.fresh({ now: () => t++ });
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

// SQLite's own handle makes the race (a repository on a second connection); PostgreSQL's ON CONFLICT is the same statement.
describe('workspaces (sqlite)', () => {
  it('two processes creating one path at once both get the one row (the second insert finds it, no UNIQUE error)', () => {
    const home = mkdtempSync(join(tmpdir(), 'talaria-ws-race-'));
    const other = openStore({ home });
    const mine = openStore({ home });
    try {
      // `now` runs between this repo's read (a miss) and its insert: the other process wins the race there.
      let theirs: string | undefined;
      const racing = createWorkspacesRepo(rawDb(mine), () => {
        theirs ??= other.workspaces.ensure({ path: '/w/raced' }).id;
        return 5;
      });
      const got = racing.ensure({ path: '/w/raced', defaultProvider: 'demo' });
      expect(got.id).toBe(theirs);
      expect(mine.workspaces.list().map((w) => w.path)).toEqual(['/w/raced']);
    } finally {
      mine.close();
      other.close();
    }
  });
});
