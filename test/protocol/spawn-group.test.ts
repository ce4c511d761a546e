import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnAgent } from '../../src/protocol/spawn.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

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
    // SIGKILL was sent to the group; wait for the kernel to finish reaping (condition, bounded by the test timeout).
    while (alive(pid) && !isZombie(pid)) await new Promise((r) => setImmediate(r));
    expect(alive(pid) && !isZombie(pid)).toBe(false);
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
