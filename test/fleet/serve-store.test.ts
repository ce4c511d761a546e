/**
 * `talaria serve --store postgres://…` (issue 39 item 1): the server records into PostgreSQL, a
 * command on the same home with $TALARIA_STORE reads the same sessions, and the home's own
 * SQLite file stays empty. A store that cannot be reached stops the start with a clear line that
 * never shows the password.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { openSyncPg, type SyncPg } from '../../src/store/pg/sync-client.js';
import { startCluster, type Cluster } from '../store/pg/cluster.js';
import { demoEnv, runCli, startCli, tempDir } from '../cli/helpers.js';

vi.setConfig({ testTimeout: 120_000 });

let cluster: Cluster;
let admin: SyncPg;
const stores: Store[] = [];
beforeAll(() => {
  cluster = startCluster();
  admin = openSyncPg(cluster.url);
  admin.query('CREATE DATABASE fleet1');
});
afterAll(() => {
  try {
    for (const s of stores) s.close();
    admin?.close();
  } finally {
    cluster?.destroy();
  }
});

describe('talaria serve --store postgres://', () => {
  it('records into PostgreSQL; TALARIA_STORE reads the same sessions; the home keeps no SQLite store of them', async () => {
    const url = cluster.url.replace('/postgres?', '/fleet1?');
    const home = tempDir('serve-store');
    const env = demoEnv(home);
    const serve = startCli(['serve', '--port', '0', '--store', url], { cwd: home, env });
    try {
      await serve.until((out) => /#token=\S+/.test(out));
      // Through the running server (the run's fast path finds it on this home).
      const run = await runCli(['run', '--agent', 'demo', 'hello through postgres'], { cwd: home, env });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('hello through postgres');
    } finally {
      serve.child.kill('SIGTERM');
    }
    expect((await serve.done).code).toBe(0);
    const pg = openStore({ url });
    stores.push(pg);
    const sessions = pg.sessions.list();
    expect(sessions).toHaveLength(1);
    const id = sessions[0]!.id;
    expect(pg.turns.list(id).map((t) => t.stopReason)).toEqual(['end_turn']);
    expect(pg.wire.count(id)).toBeGreaterThan(3);
    // The home's file holds none of it (it may not exist at all).
    const file = join(home, 'talaria', 'talaria.db');
    if (existsSync(file)) {
      const local = openStore({ path: file, readOnly: true });
      stores.push(local);
      expect(local.sessions.list()).toEqual([]);
    }
    // Another command on the same home, pointed at the same store.
    const listed = await runCli(['sessions', 'list', '--json'], { cwd: home, env: { ...env, TALARIA_STORE: url } });
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { sessions: { id: string }[] }).sessions.map((s) => s.id)).toContain(id);
  });

  it('an unreachable store stops the start with a clear line and never prints the password', async () => {
    const home = tempDir('serve-store');
    const bad = 'postgres://talaria:s3cret-pw@/talaria?host=/nonexistent-talaria-socket-dir';
    const out = await runCli(['serve', '--port', '0', '--store', bad], {
      cwd: home,
      env: demoEnv(home, { TALARIA_STORE_BUSY_MS: '500' }),
    });
    expect(out.code).not.toBe(0);
    expect(out.stderr).toMatch(/PostgreSQL at postgres:\/\/talaria@/);
    expect(out.stdout + out.stderr).not.toContain('s3cret-pw');
    expect(out.stdout).not.toMatch(/#token=/);
  });
});
