/**
 * Module-level state belongs to the host (issue 9): two hosts in one process keep their own
 * agents and exit hooks; disposing one leaves the other's processes and hook alone; no listener
 * piles up or warns.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AgentTrees } from '../../src/host/tree.js';
import { alive, gone } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

const TWO_HOSTS = fileURLToPath(new URL('./two-hosts.ts', import.meta.url));

describe('host instances', () => {
  it('two hosts: dispose one, the other keeps its processes and its exit hook, which ends its whole tree', async () => {
    const child = spawn(process.execPath, nodeArgs(TWO_HOSTS), { stdio: ['pipe', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => {
      let buf = '';
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        if (buf.includes('\n')) resolve(buf.split('\n')[0]!);
      });
    });
    const r = JSON.parse(line) as {
      a: { agent: number; work: number };
      b: { agent: number; work: number };
      hooks: number;
      hooksAfterDispose: number;
      aliveAfterDispose: { a: boolean[]; b: boolean[] };
      warnings: string[];
    };
    expect(r.hooks).toBe(2);
    expect(r.hooksAfterDispose).toBe(1);
    expect(r.aliveAfterDispose).toEqual({ a: [false, false], b: [true, true] });
    expect(r.warnings).toEqual([]);
    const exited = new Promise((res) => child.once('exit', res));
    child.stdin.write('go\n');
    await exited;
    // B was never disposed: its exit hook ended its agent and the process that left its group.
    await gone(r.b.agent);
    await gone(r.b.work);
    expect([alive(r.b.agent), alive(r.b.work)]).toEqual([false, false]);
  });

  it('exit hooks come and go with the host’s agents: many hosts, no MaxListeners warning, nothing left after dispose', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const base = process.listenerCount('exit');
    const max = process.getMaxListeners();
    try {
      const trees = Array.from({ length: 15 }, () => new AgentTrees(true));
      // Pids no agent has: owning one only arms the hook (nothing is signalled before exit).
      trees.forEach((t, i) => t.own({ pid: 4_000_000 + i, tag: `t${i}`, start: undefined }));
      expect(process.listenerCount('exit')).toBe(base + 15);
      trees[0]!.release(4_000_000);
      expect(process.listenerCount('exit')).toBe(base + 14);
      new AgentTrees(false).own({ pid: 4_000_100, tag: 'x', start: undefined }); // killOnExit off: no hook
      expect(process.listenerCount('exit')).toBe(base + 14);
      for (const t of trees) t.dispose();
      expect(process.listenerCount('exit')).toBe(base);
      expect(process.getMaxListeners()).toBe(max);
      // A warning is emitted on the next tick.
      await new Promise((r) => setImmediate(r));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
