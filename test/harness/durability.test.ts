import { describe, it, expect } from 'vitest';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/index.js';
import { tempHome } from '../store/helpers.js';
import { nodeArgs } from '../prebuilt.js';
import { rawDb } from '../../src/store/sqlite.js';

const CHILD = fileURLToPath(new URL('./sigkill-child.ts', import.meta.url));

describe('durability', () => {
  // `thread`: the child commits on the writer thread (it waits for the thread before recording).
  it.each(['inline', 'thread'])(
    'a recorder SIGKILLed mid-turn leaves a clean database holding every committed frame, in order (%s)',
    async (mode) => {
      const home = tempHome('sigkill');
      const env = { ...process.env, TALARIA_WRITER_THREAD: mode === 'thread' ? '1' : '0' };
      const child = spawn(process.execPath, [...nodeArgs(CHILD), home], { stdio: ['pipe', 'pipe', 'pipe'], env });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('close', (code, signal) => resolve({ code, signal })),
      );

      // Every `n=` line the child printed was committed before it was printed; read them all,
      // including any still in the pipe when the kill lands.
      let reported = 0;
      let killed = false;
      for await (const line of createInterface({ input: child.stdout })) {
        const m = /^n=(\d+)$/.exec(line);
        if (!m) continue;
        reported = Math.max(reported, Number(m[1]));
        if (!killed && reported >= 500) {
          killed = true;
          child.kill('SIGKILL');
        }
      }
      const exit = await exited;
      expect(stderr).toBe('');
      expect(exit.signal).toBe('SIGKILL');
      expect(reported).toBeGreaterThanOrEqual(500);

      const store = openStore({ home });
      try {
        expect(rawDb(store).pragma('integrity_check', { simple: true })).toBe('ok');
        expect(rawDb(store).pragma('foreign_key_check')).toEqual([]);
        const rows = store.wire.rows('victim');
        expect(rows.length).toBeGreaterThanOrEqual(reported);
        rows.forEach((r, i) => {
          expect(r.seq).toBe(i + 1);
          const text = (JSON.parse(r.msg) as { params: { update: { content: { text: string } } } }).params.update
            .content.text;
          expect(text.startsWith(`frame ${i + 1} `)).toBe(true);
        });
        // Turn rows and entries written alongside the frames are there too.
        const turns = store.turns.list('victim');
        expect(turns.length).toBeGreaterThanOrEqual(Math.floor(reported / 40));
        expect(turns.filter((t) => t.stopReason === 'end_turn').length).toBeGreaterThanOrEqual(
          Math.floor(reported / 40),
        );
        expect(store.entries.count('victim')).toBeGreaterThan(0);
      } finally {
        store.close();
      }
    },
  );
});
