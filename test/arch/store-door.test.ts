import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { breaches, faceReaches, FACE_REACHES_LEFT, OTHER_DATABASES, storeDoorBreaches } from './store-door.js';

/** See store-door.ts: SQL and the database handle stay in src/store. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the store behind its own door', () => {
  it('no SQL, no better-sqlite3 and no database handle outside src/store (other programs’ databases listed)', () => {
    expect(storeDoorBreaches(ROOT)).toEqual([]);
  });

  it('the faces (server, cli, caps, ACP) use the harness, not its store’s repositories (the files left listed)', () => {
    expect(storeDoorBreaches(ROOT, { faces: true })).toEqual([]);
  });

  it('every file listed exists', () => {
    const listed = [...Object.keys(OTHER_DATABASES), ...Object.keys(FACE_REACHES_LEFT)];
    expect(listed.filter((f) => !existsSync(new URL(`../../${f}`, import.meta.url)))).toEqual([]);
  });

  it('the checker names each breach by file and line, and lets a RegExp, a warm pool and prose be', () => {
    const src = [
      "import Database from 'better-sqlite3';",
      "import { rawDb } from '../store/sqlite.js';",
      'const h = this.store.db;',
      'this.store.db',
      '  .prepare(',
      "    'SELECT 1',",
      '  );',
      "db.exec('DELETE FROM x');",
      "d.pragma('wal_checkpoint(PASSIVE)');",
      'db.transaction(() => 1);',
      '/^a(b)$/.exec(text);',
      'await d.warm.prepare(t);',
      "// the store.db handle, db.prepare('SELECT') in prose",
      'harness.store.transaction(() => 1);',
    ].join('\n');
    expect(breaches('src/server/x.ts', src)).toEqual([
      'src/server/x.ts: imports better-sqlite3',
      "src/server/x.ts: imports the store's SQLite internals (../store/sqlite.js)",
      "src/server/x.ts:3: reaches the store's database handle (store.db)",
      "src/server/x.ts:4: reaches the store's database handle (store.db)",
      'src/server/x.ts:4: uses a database handle (db.prepare()',
      "src/server/x.ts:5: runs SQL (.prepare('SELECT)",
      "src/server/x.ts:8: runs SQL (.exec('DELETE)",
      'src/server/x.ts:8: uses a database handle (db.exec()',
      'src/server/x.ts:9: runs a pragma (.pragma()',
      'src/server/x.ts:10: uses a database handle (db.transaction()',
    ]);
    // A RegExp's exec on a template, as src/session/errors.ts does.
    expect(breaches('src/session/x.ts', 're.exec(`${message}\\n${raw}`);')).toEqual([]);
    expect(breaches('src/store/sessions.ts', src)).toEqual([]);
    expect(breaches('src/providers/hermes/state-db.ts', src)).toEqual([]);
  });

  it('a face reaching a repository through the harness is named; the harness itself and the store are not faces', () => {
    const src = [
      'const w = harness.store.workspaces.get(id);',
      'h.store.closed;',
      'this.harness.store',
      '  .turns.list(id);',
    ].join('\n');
    expect(faceReaches('src/server/x.ts', src)).toEqual([
      "src/server/x.ts:1: reaches a repository through the harness's store (harness.store.workspaces)",
      "src/server/x.ts:3: reaches a repository through the harness's store (harness.store.turns)",
    ]);
    expect(faceReaches('src/harness/workspace.ts', src)).toEqual([]);
  });
});
