/**
 * Bytes the store grows per byte of wire (issue 35 item 10): a server session (thread, wire log,
 * event log, turn rows, as `talaria serve` records them) given one large prompt (7 MiB, under
 * the 8 MiB default limit), and one streamed turn of many small chunks. Growth is the store's
 * files after the server closed (checkpointed) minus before the turn; wire bytes are the
 * session's frames as the wire log holds them.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createHarness } from '../src/harness/index.js';
import { currentEnv } from '../src/providers/locate.js';
import { connectServer, type WebSocketCtor } from '../src/server/client/index.js';
import { startServer } from '../src/server/index.js';
import { rawDb } from '../src/store/sqlite.js';

const dbBytes = (home: string) =>
  readdirSync(home)
    .filter((f) => f.startsWith('talaria.db'))
    .reduce((n, f) => n + statSync(join(home, f)).size, 0);

async function growthPerWireByte(text: string, env: Record<string, string>): Promise<number> {
  const root = mkdtempSync(join(tmpdir(), 'talaria-bench-bytes-'));
  const home = join(root, 'home');
  try {
    const harness = createHarness({
      home,
      warm: false,
      env: currentEnv({
        env: { PATH: process.env.PATH ?? '', HOME: root, TALARIA_DEMO_HOME: join(root, 'demo'), ...env },
        homeDir: root,
      }),
    });
    const server = await startServer({ harness, port: 0 });
    const api = connectServer(server.url, undefined, { WebSocket: WebSocket as unknown as WebSocketCtor }).api;
    const { workspace } = await api.openWorkspace({ body: { path: root } });
    const { snapshot } = await api.createSession({ params: { id: workspace.id }, body: { provider: 'demo' } });
    const id = snapshot.session.id;
    rawDb(harness.store).pragma('wal_checkpoint(TRUNCATE)');
    const before = dbBytes(home);
    await api.prompt({ params: { id }, body: { text } });
    for (let i = 0; harness.store.turns.list(id).at(-1)?.stopReason === undefined; i++) {
      if (i > 6000) throw new Error('the turn did not end in 60 s');
      await new Promise((r) => setTimeout(r, 10));
    }
    let wire = 0;
    for (const f of harness.store.wire.iterate(id)) wire += f.msg.length;
    await server.close();
    return (dbBytes(home) - before) / wire;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export async function runStoreBytes(o: { quick: boolean }): Promise<{ bigPromptRatio: number; streamedRatio: number }> {
  const bigPromptRatio = await growthPerWireByte('w'.repeat((o.quick ? 1 : 7) * 1024 * 1024), {});
  const streamedRatio = await growthPerWireByte('slow', {
    TALARIA_DEMO_SLOW_CHUNKS: o.quick ? '500' : '5000',
    TALARIA_DEMO_SLOW_DELAY_MS: '0',
  });
  return { bigPromptRatio, streamedRatio };
}
