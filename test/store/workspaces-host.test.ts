/**
 * A workspace is a path on one host (migration 014, docs/fleet.md §2): two hosts' stores on the
 * same data, each told its host (`useHost`), each with its own row for one path and its own list;
 * rows from before the fleet ('' host) are claimed by the first host that uses them.
 */
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { migrate } from '../../src/store/db.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { BACKENDS } from './backends.js';

const A = 'h_aaaaaaaa-0000-4000-8000-000000000000';
const B = 'h_bbbbbbbb-0000-4000-8000-000000000000';

describe.each(BACKENDS)('workspaces per host ($name)', (backend) => {
  it('the same path on two hosts is two rows; each host finds and lists its own; get(id) reads any', () => {
    const a = backend.fresh();
    const b = backend.again(a);
    a.workspaces.useHost(A);
    b.workspaces.useHost(B);
    const wa = a.workspaces.ensure({ path: '/home/me/proj' });
    const wb = b.workspaces.ensure({ path: '/home/me/proj' });
    expect(wa.id).not.toBe(wb.id);
    expect(wa).toMatchObject({ path: '/home/me/proj', hostId: A });
    expect(wb).toMatchObject({ path: '/home/me/proj', hostId: B });
    const onlyA = a.workspaces.ensure({ path: '/home/me/only-a' });
    expect(a.workspaces.ensure({ path: '/home/me/proj' }).id).toBe(wa.id);
    expect(a.workspaces.getByPath('/home/me/proj')?.id).toBe(wa.id);
    expect(b.workspaces.getByPath('/home/me/only-a')).toBeUndefined();
    expect(
      a.workspaces
        .list()
        .map((w) => w.id)
        .sort(),
    ).toEqual([wa.id, onlyA.id].sort());
    expect(b.workspaces.list().map((w) => w.id)).toEqual([wb.id]);
    // Another host's session names its workspace.
    expect(b.workspaces.get(onlyA.id)).toMatchObject({ path: '/home/me/only-a', hostId: A });
    expect(b.workspaces.host()).toBe(B);
    expect(() => b.workspaces.useHost(A)).toThrow(/cannot move/);
  });

  it('(host, path) is unique; a store without a host keeps one row per path', () => {
    const s = backend.fresh();
    const w = s.workspaces.ensure({ path: '/p' });
    expect(w.hostId).toBeUndefined();
    expect(s.workspaces.ensure({ path: '/p' }).id).toBe(w.id);
    const add = (id: string, host: string) =>
      backend.sql(
        s,
        "INSERT INTO workspaces (id, path, name, created_at, updated_at, host_id) VALUES (?, '/p', 'p', 1, 1, ?)",
        id,
        host,
      );
    expect(() => add('dup', '')).toThrow();
    add('on-a', A);
    expect(() => add('on-a-again', A)).toThrow();
    expect(s.workspaces.list().map((x) => x.id)).toEqual([w.id]);
  });

  it('a row from before the fleet: listed by every host until the first to use it claims it', () => {
    const s = backend.fresh();
    const legacy = s.workspaces.ensure({ path: '/old', defaultProvider: 'demo' });
    const a = backend.again(s);
    const b = backend.again(s);
    a.workspaces.useHost(A);
    b.workspaces.useHost(B);
    expect(b.workspaces.list().map((w) => w.id)).toEqual([legacy.id]);
    expect(a.workspaces.getByPath('/old')?.id).toBe(legacy.id);
    const claimed = a.workspaces.ensure({ path: '/old' });
    expect(claimed).toMatchObject({ id: legacy.id, hostId: A, defaultProvider: 'demo' });
    expect(b.workspaces.list()).toEqual([]);
    const own = b.workspaces.ensure({ path: '/old' });
    expect(own.id).not.toBe(legacy.id);
    expect(own.hostId).toBe(B);
    expect(a.workspaces.list().map((w) => w.id)).toEqual([legacy.id]);
  });
});

describe('migration 014 (sqlite)', () => {
  it('rebuilds workspaces without losing the sessions and defaults that point at them', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    migrate(
      db,
      MIGRATIONS.filter((m) => m.version < 14),
    );
    db.exec(`
      INSERT INTO workspaces (id, path, name, created_at, updated_at, own_profile) VALUES ('w1', '/p', 'p', 1, 2, 1);
      INSERT INTO sessions (id, provider, workspace_id, cwd, created_at, updated_at) VALUES ('s1', 'demo', 'w1', '/p', 1, 1);
      INSERT INTO agent_defaults (workspace_id, provider, profile, model_id, updated_at) VALUES ('w1', 'demo', '', 'm', 1);
    `);
    expect(migrate(db, MIGRATIONS).applied).toContain(14);
    expect(db.prepare('SELECT * FROM workspaces').all()).toEqual([
      expect.objectContaining({ id: 'w1', path: '/p', updated_at: 2, own_profile: 1, host_id: '' }),
    ]);
    expect(db.prepare('SELECT workspace_id FROM sessions').all()).toEqual([{ workspace_id: 'w1' }]);
    expect(db.prepare('SELECT workspace_id, model_id FROM agent_defaults').all()).toEqual([
      { workspace_id: 'w1', model_id: 'm' },
    ]);
    const fks = db.prepare('PRAGMA foreign_key_list(sessions)').all() as { table: string }[];
    expect(fks.map((f) => f.table)).toEqual(['workspaces']);
    expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });
});
