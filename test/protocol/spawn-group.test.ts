import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnAgent } from '../../src/protocol/spawn.js';
import { pidAlive as alive } from '../../src/os/proc-scan.js';

describe('spawnAgent terminate', () => {
  it('kills what the agent left in its process group after the agent itself exited', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'talaria-spawn-'));
    // The leader prints its grandchild's pid, then exits as soon as stdin closes; the sleep stays behind.
    const proc = await spawnAgent({ command: '/bin/sh', args: ['-c', 'sleep 1000 & echo $!; read x; exit 0'], cwd });
    const pid = await new Promise<number>((resolve) => {
      let buf = '';
      proc.stdout.on('data', (c: Buffer) => {
        buf += c.toString();
        if (buf.includes('\n')) resolve(Number(buf.trim()));
      });
    });
    expect(alive(pid)).toBe(true);
    const info = await proc.terminate({ graceMs: 5000 });
    expect(info.code).toBe(0); // the leader left on its own when stdin closed
    // SIGKILL was sent to the group; wait for the kernel to finish reaping.
    await expect.poll(() => alive(pid) && !isZombie(pid), { timeout: 30_000, interval: 5 }).toBe(false);
  });
});

describe('spawnAgent marks its tree', () => {
  it('terminate() also ends what the agent started in its own session (setsid), out of its group', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'talaria-spawn-'));
    // The escaped child prints its pid; the agent exits when stdin closes.
    const proc = await spawnAgent({
      command: '/bin/sh',
      args: ['-c', `setsid -f sh -c 'echo $$; exec sleep 1000'; read x; exit 0`],
      cwd,
    });
    const pid = await new Promise<number>((resolve) => {
      let buf = '';
      proc.stdout.on('data', (c: Buffer) => {
        buf += c.toString();
        if (buf.includes('\n')) resolve(Number(buf.trim()));
      });
    });
    expect(alive(pid) && !isZombie(pid)).toBe(true);
    await proc.terminate({ graceMs: 5000 });
    // Ended before terminate() resolved, not some time later.
    expect(alive(pid) && !isZombie(pid)).toBe(false);
  });

  it('the tag is set in the agent’s environment, and a configured env cannot take it off', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'talaria-spawn-'));
    const proc = await spawnAgent({
      command: '/bin/sh',
      args: ['-c', 'echo "$TALARIA_AGENT_TAG"; read x'],
      cwd,
      env: { TALARIA_AGENT_TAG: 'mine' },
    });
    const line = await new Promise<string>((resolve) =>
      proc.stdout.once('data', (c: Buffer) => resolve(c.toString().trim())),
    );
    expect(line).toBe(proc.tag);
    expect(proc.tag).toMatch(/^[\w-]{24}$/);
    expect(proc.startTicks).toBeGreaterThan(0);
    await proc.terminate();
  });
});

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}
