/** Another process holding a store's write lock (lock-holder-child.ts), for the outage tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, vi } from 'vitest';

const children: ChildProcess[] = [];
/** Kills the lock holders a test left running (call in afterEach). */
export function killLockHolders(): void {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
}

/** Another process holding the write lock of `dbPath` until `release()`. */
export async function lockHolder(dbPath: string) {
  const child = spawn(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), fileURLToPath(new URL('./lock-holder-child.ts', import.meta.url)), dbPath],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  children.push(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  await vi.waitFor(() => expect(out).toContain('locked'), { timeout: 20_000, interval: 20 });
  return {
    async deleteSession(id: string) {
      child.stdin.write(`delete ${id}\n`);
      await vi.waitFor(() => expect(out).toContain('deleted'), { timeout: 10_000, interval: 10 });
    },
    async release() {
      child.stdin.write('commit\n');
      expect(await exited).toBe(0);
      expect(out).toContain('released');
    },
  };
}
