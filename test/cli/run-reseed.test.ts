/**
 * Issue 35 item 18: `talaria run --json` reports the agent session the session is on when its turn
 * ends. After a Hermes overflow the next message goes to a fresh agent session (a reseed, during
 * the prompt): the report names that one, as the store does.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { demoEnv, runCli, startCli, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 90_000) });

const HERMES_BIN_DIR = fileURLToPath(new URL('../fakes/hermes/bin', import.meta.url));

type Out = { sessionId: string; agentSessionId: string; error?: { code: string } };

function place() {
  const cwd = tempDir('reseed');
  const hermesHome = tempDir('hermes');
  writeFileSync(
    join(hermesHome, 'config.yaml'),
    'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n',
  );
  const env = {
    ...demoEnv(tempDir('reseed-home')),
    PATH: [HERMES_BIN_DIR, dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: tempDir('user'),
    HERMES_HOME: hermesHome,
  };
  return { cwd, env };
}

/** Overflow in one run, then the next message of that session: the report names the store's agent session. */
async function overflowThenNext(p: { cwd: string; env: Record<string, string> }): Promise<void> {
  const first = JSON.parse((await runCli(['run', '--json', 'OVERFLOW now'], p)).stdout) as Out;
  expect(first.error?.code).toBe('context_overflow');
  const next = await runCli(['run', '--json', '--session', first.sessionId, 'which word?'], p);
  const out = JSON.parse(next.stdout) as Out;
  expect(out.error).toBeUndefined();
  expect(out.sessionId).toBe(first.sessionId);
  const listed = JSON.parse((await runCli(['sessions', 'list', '--json', '--store-only'], p)).stdout) as {
    sessions: { id: string; agentSessionId: string }[];
  };
  const row = listed.sessions.find((s) => s.id === first.sessionId)!;
  expect(row.agentSessionId).not.toBe(first.agentSessionId);
  expect(out.agentSessionId).toBe(row.agentSessionId);
}

describe('run --json after an overflow reseed', () => {
  it("reports the new agent session id, the store's", async () => {
    await overflowThenNext(place());
  });

  it('the same through a running talaria serve (the run streams from the server)', async () => {
    const p = place();
    const serve = startCli(['serve', '--port', '0'], p);
    await serve.until((out) => /#token=/.test(out));
    try {
      await overflowThenNext(p);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.done;
    }
  });
});
