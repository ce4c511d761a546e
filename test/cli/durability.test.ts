import { describe, it, expect, vi } from 'vitest';
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../../src/store/index.js';
import { demoEnv, runCli, startCli, tempDir } from './helpers.js';
import { until } from '../until.js';
import { rawDb } from '../../src/store/sqlite.js';

vi.setConfig({ testTimeout: 90_000 });

/** Frames committed so far, read through a separate read-only connection (as another process would). */
function committed(db: string): number {
  if (!existsSync(db)) return 0;
  const ro = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const rows = (ro.prepare('SELECT COUNT(*) AS n FROM wire_log').get() as { n: number }).n;
    // The recorder stores a commit's frames as one block (store/wire-blocks.ts).
    return (
      rows +
      ((ro.prepare('SELECT SUM(last_seq - first_seq + 1) AS n FROM wire_blocks').get() as { n: number | null }).n ?? 0)
    );
  } catch {
    return 0; // the schema is not there yet
  } finally {
    ro.close();
  }
}

const chunkNo = (msg: string) => /"text":"Chunk (\d+) of/.exec(msg)?.[1];

describe('durability through the CLI', () => {
  it('SIGKILL of `talaria run` mid-turn: the database opens cleanly and holds every frame committed before the kill', async () => {
    const cwd = tempDir('kill');
    const env = demoEnv(tempDir('kill-home'), { TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '1' });
    const db = join(env.TALARIA_HOME!, 'talaria.db');
    const cli = startCli(['run', '--ndjson', 'slow'], { cwd, env });
    await cli.until((out) => out.includes('Chunk 1 of'));
    let seen = 0;
    await until(() => (seen = committed(db)) >= 300, { what: '300 committed frames', ms: 60_000 });
    cli.child.kill('SIGKILL');
    const r = await cli.done;
    expect(r.signal).toBe('SIGKILL');

    const store = openStore({ home: env.TALARIA_HOME! });
    let id: string;
    try {
      expect(rawDb(store).pragma('integrity_check', { simple: true })).toBe('ok');
      expect(rawDb(store).pragma('foreign_key_check')).toEqual([]);
      const [row] = store.sessions.list();
      expect(row).toBeDefined();
      id = row!.id;
      const rows = store.wire.rows(id);
      // Everything seen committed from outside is still there, in order, without holes.
      expect(rows.length).toBeGreaterThanOrEqual(seen);
      rows.forEach((w, i) => expect(w.seq).toBe(i + 1));
      expect(JSON.parse(rows[0]!.msg)).toMatchObject({ method: 'initialize' });
      const chunks = rows
        .map((w) => chunkNo(w.msg))
        .filter((n): n is string => n !== undefined)
        .map(Number);
      expect(chunks.length).toBeGreaterThan(100);
      chunks.forEach((n, i) => expect(n).toBe(i + 1));
      // Every session-scoped frame is this session's.
      const sids = new Set(
        rows.map((w) => (JSON.parse(w.msg) as { params?: { sessionId?: string } }).params?.sessionId).filter(Boolean),
      );
      expect([...sids]).toEqual([row!.agentSessionId]);
      // The thread and the open turn were written alongside.
      expect(store.entries.count(id)).toBeGreaterThan(0);
      const turns = store.turns.list(id);
      expect(turns).toEqual([expect.objectContaining({ prompt: [{ type: 'text', text: 'slow' }] })]);
      expect(turns[0]!.stopReason).toBeUndefined();
    } finally {
      store.close();
    }

    // The killed session can be continued.
    const next = await runCli(['run', '--json', '--session', id, 'after the kill'], {
      cwd,
      env: { ...env, TALARIA_DEMO_SLOW_CHUNKS: '3' },
    });
    expect(next.code).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ stopReason: 'end_turn' });
  });
});
