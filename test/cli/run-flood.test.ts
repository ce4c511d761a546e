/**
 * Issue 9's reproduction, end to end: `talaria run --agent-cmd yes --setup-timeout 5` used to
 * overshoot its timeout by a minute and hundreds of MB. Now the flood itself is the error, so
 * the run ends before the timeout could fire (a timeout would say "timed out"), with a clear line.
 */
import { describe, it, expect } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { demoEnv, runCli, tempDir } from './helpers.js';

describe('talaria run with an agent that floods stdout', () => {
  it('`yes` as the agent: a one-line "not ACP" error, not a setup timeout', { timeout: 120_000 }, async () => {
    const r = await runCli(['run', '--agent-cmd', 'yes', '--setup-timeout', '5', 'hi'], {
      cwd: tempDir('flood'),
      env: demoEnv(tempDir('flood-home')),
    });
    expect(r.code).toBe(EXIT.NOT_READY);
    expect(r.stderr).toContain('talaria run: yes does not speak ACP: it wrote "y" on stdout, which is not JSON-RPC');
    expect(r.stderr).not.toMatch(/timed out/);
    expect(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => l.includes('does not speak ACP')),
    ).toHaveLength(1);
  });
});
