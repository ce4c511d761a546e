import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createdByOf } from '../../src/harness/index.js';
import { openStore } from '../../src/store/index.js';
import { demoEnv, runCli, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 90_000) });

/** Issue 37: a session a one-shot `talaria run` made is marked so in the store (the web sidebar shows it). */
describe('talaria run marks the sessions it makes', () => {
  it('run (no server): the new row says createdBy run', async () => {
    const home = tempDir('run-origin');
    const p = { cwd: tempDir('run-origin-cwd'), env: demoEnv(home) };
    const r = await runCli(['run', '--json', 'hello'], p);
    expect(r.code).toBe(0);
    const { sessionId } = JSON.parse(r.stdout) as { sessionId: string };
    const store = openStore({ home: join(home, 'talaria'), readOnly: true });
    try {
      const row = store.sessions.get(sessionId)!;
      expect(createdByOf(row)).toBe('run');
      expect((row.agentInfo as { agentInfo?: { name?: string } }).agentInfo?.name).toBeTruthy();
    } finally {
      store.close();
    }
  });
});
