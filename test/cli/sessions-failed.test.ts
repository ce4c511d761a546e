import { describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { demoEnv, fakeCmd, runCli, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 90_000) });

/** Issue 37: `talaria sessions list` says which sessions failed and why, in a new process (from the store). */
describe('sessions list shows failed sessions', () => {
  it('a run whose agent died mid-turn is listed as failed with the short reason, in text and JSON; a good one is not', async () => {
    const p = { cwd: tempDir('sess-failed'), env: demoEnv(tempDir('sess-failed-home')) };
    const failed = await runCli(['run', '--agent-cmd', fakeCmd('crash-mid-turn'), 'hello'], p);
    expect(failed.code).not.toBe(EXIT.OK);
    expect((await runCli(['run', 'all good'], p)).code).toBe(EXIT.OK);

    const listed = JSON.parse((await runCli(['sessions', 'list', '--store-only', '--json'], p)).stdout) as {
      sessions: { id: string; title?: string; failure?: { cause: string; message: string } }[];
    };
    const bad = listed.sessions.find((s) => s.title === 'hello')!;
    const good = listed.sessions.find((s) => s.title !== 'hello')!;
    expect(bad.failure).toEqual({
      cause: 'agent',
      message: expect.stringMatching(/^agent exited with code 3; stderr: .*RuntimeError: fake model backend exploded/s),
    });
    expect(good.failure).toBeUndefined();
    // Its thread says why, under the turn, as the web shows it (the session layer adds it: no server ran).
    const md = (await runCli(['sessions', 'export', bad.id], p)).stdout;
    expect(md).toMatch(/The agent stopped during this turn: agent exited with code 3/);

    const text = (await runCli(['sessions', 'list', '--store-only'], p)).stdout;
    expect(text).toMatch(new RegExp(`^${bad.id} .* failed: agent exited with code 3 +hello$`, 'm'));
    expect(text).toMatch(new RegExp(`^${good.id} +demo +\\S+ \\S+ +\\S`, 'm'));
    expect(text).not.toMatch(new RegExp(`^${good.id} .*failed`, 'm'));

    const all = JSON.parse(
      (await runCli(['sessions', 'list', '--all-workspaces', '--json'], p)).stdout,
    ) as typeof listed;
    expect(all.sessions.find((s) => s.id === bad.id)?.failure?.cause).toBe('agent');
    expect((await runCli(['sessions', 'list', '--all-workspaces'], p)).stdout).toMatch(
      new RegExp(`^${bad.id} .* failed: agent exited with code 3`, 'm'),
    );
  });
});
