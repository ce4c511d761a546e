/**
 * Issue 17, as the user met it: `talaria run` with a tool that put itself in its own session
 * (setsid, as Claude Code runs shell tools), Ctrl-C → exit 130 "cancelled" — and nothing of the
 * tool may still run (it used to write late.txt 40 s later).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { fakeCmd, ndjsonLines, startCli, tempDir } from './helpers.js';
import { pidAlive as alive } from '../../src/os/proc-scan.js';

const strays: number[] = [];
afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

describe('talaria run, cancelled', () => {
  it('Ctrl-C: exit 130, the tool card cancelled, and the tool’s processes gone (setsid included)', async () => {
    const cwd = tempDir('reap');
    const pidFile = join(cwd, 'pids');
    const tool = `setsid sh -c 'echo $$ >> ${pidFile}; sleep 45 & echo $! >> ${pidFile}; wait; echo late > ${cwd}/late.txt'`;
    const cli = startCli(['run', '--ndjson', '--agent-cmd', fakeCmd('tool-agent'), `run ${tool}`], { cwd });
    const pids = await vi.waitFor(
      () => {
        const seen = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number) : [];
        if (seen.length < 2) throw new Error(`the tool has not started its two processes (${seen.length})`);
        return seen;
      },
      { timeout: 30_000, interval: 10 },
    );
    strays.push(...pids);
    expect(pids.every(alive)).toBe(true);
    cli.child.kill('SIGINT');
    const r = await cli.done;
    expect(r.code).toBe(EXIT.CANCELLED);
    expect(pids.map(alive)).toEqual([false, false]);
    expect(existsSync(join(cwd, 'late.txt'))).toBe(false);
    const lines = ndjsonLines(r.stdout);
    const cards = lines
      .filter((l) => (l.entry as { kind?: string } | undefined)?.kind === 'tool_call')
      .map((l) => (l.entry as { status: string }).status);
    expect(cards.at(-1)).toBe('cancelled');
  });
});
