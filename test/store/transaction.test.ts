/**
 * Two processes write one store (`talaria acp` beside a harness or a server). A write transaction
 * must take the write lock when it begins: a deferred one that reads, then writes after another
 * connection committed, fails at once with "database is locked" (SQLITE_BUSY_SNAPSHOT, no wait).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { rawDb } from '../../src/store/sqlite.js';
import { BACKENDS } from './backends.js';

const open: Store[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('store transactions beside another writer (sqlite)', () => {
  it('a read-then-write transaction holds the write lock from its start, so another writer cannot slip in between', () => {
    const home = mkdtempSync(join(tmpdir(), 'talaria-tx-'));
    dirs.push(home);
    const a = openStore({ home });
    // The other writer does not wait: what it cannot do at once it is refused.
    const b = openStore({ home, busyTimeoutMs: 0 });
    open.push(a, b);
    let otherRefused = false;
    const n = a.transaction(() => {
      const before = (rawDb(a).prepare('SELECT COUNT(*) AS n FROM workspaces').get() as { n: number }).n;
      try {
        rawDb(b)
          .prepare(
            "INSERT INTO workspaces (id, path, name, created_at, updated_at) VALUES ('w-other', '/other', 'o', 0, 0)",
          )
          .run();
      } catch (e) {
        otherRefused = /locked|busy/i.test(String(e));
      }
      rawDb(a)
        .prepare(
          "INSERT INTO workspaces (id, path, name, created_at, updated_at) VALUES ('w-mine', '/mine', 'm', 0, 0)",
        )
        .run();
      return before;
    });
    expect(n).toBe(0);
    expect(otherRefused).toBe(true);
    expect((rawDb(a).prepare('SELECT id FROM workspaces').all() as { id: string }[]).map((r) => r.id)).toEqual([
      'w-mine',
    ]);
  });
});

describe.each(BACKENDS)('store transactions ($name)', (backend) => {
  it('commit together or not at all; a nested one rolls back alone; counts are right inside', () => {
    const s = backend.fresh();
    s.sessions.create({ id: 'x', provider: 'p', cwd: '/' });
    // Row counts asked for inside a transaction (a write's answer the PostgreSQL store may hold back).
    expect(s.transaction(() => [s.sessions.touch('x', 5), s.sessions.touch('nope', 5)])).toEqual([true, false]);
    expect(() =>
      s.transaction(() => {
        s.sessions.create({ id: 'gone', provider: 'p', cwd: '/' });
        throw new Error('no');
      }),
    ).toThrow('no');
    expect(s.sessions.get('gone')).toBeUndefined();
    s.transaction(() => {
      s.sessions.create({ id: 'kept', provider: 'p', cwd: '/' });
      expect(() =>
        s.transaction(() => {
          s.sessions.create({ id: 'inner', provider: 'p', cwd: '/' });
          s.wire.append('ghost', { t_ms: 0, dir: 'client->agent', msg: {} }); // refused: no such session
        }),
      ).toThrow(/FOREIGN KEY/);
      s.sessions.setTitle('kept', 'after the inner one');
    });
    expect(s.sessions.get('kept')?.title).toBe('after the inner one');
    expect(s.sessions.get('inner')).toBeUndefined();
    // A write refused at commit leaves nothing behind, and the store goes on.
    expect(() => s.wire.append('ghost', { t_ms: 0, dir: 'client->agent', msg: {} })).toThrow(/FOREIGN KEY/);
    expect(s.sessions.touch('x', 6)).toBe(true);
    expect(s.sessions.get('x')?.lastActiveAt).toBe(6);
  });
});
