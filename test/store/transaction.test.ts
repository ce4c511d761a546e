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

const open: Store[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('store transactions beside another writer', () => {
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
