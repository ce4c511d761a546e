/**
 * Recorder CPU on a real flood's input: one `talaria.core` flood of N frames is captured as the
 * recorder would see it (every frame and event, in order), then replayed into a fresh store's
 * recorder of each checkout given, alternating, committing every 850 frames (a flood's tick).
 * CPU time (process.cpuUsage), so a shared machine skews it less than wall time; compare
 * checkouts within one run:
 *   npx tsx bench/recorder-replay.ts <checkout root>… [--frames N] [--reps R]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runTalariaFlood } from './talaria-flood.js';

type Rec = { onFrame(f: unknown): void; onEvent(e: unknown): void; flush(): void; close(): void };
type Store = { sessions: { create(o: object): { id: string } }; wire: { count(k: string): number }; close(): void };

const args = process.argv.slice(2);
const opt = (name: string, d: number): number => {
  const i = args.indexOf(name);
  if (i < 0) return d;
  const v = Number(args.splice(i, 2)[1]);
  return Number.isFinite(v) && v > 0 ? v : d;
};
const frames = opt('--frames', 100_000);
const reps = opt('--reps', 5);
const roots = (args.length ? args : ['.']).map((r) => resolve(r));

const ops: [boolean, unknown][] = [];
await runTalariaFlood({ frames, sink: { onFrame: (f) => ops.push([true, f]), onEvent: (e) => ops.push([false, e]) } });
const nFrames = ops.filter((o) => o[0]).length;
const mods = await Promise.all(
  roots.map(async (root) => ({
    root,
    openStore: (
      (await import(pathToFileURL(join(root, 'src/store/index.ts')).href)) as { openStore: (o: object) => Store }
    ).openStore,
    createRecorder: (
      (await import(pathToFileURL(join(root, 'src/harness/recorder.ts')).href)) as {
        createRecorder: (s: Store, o: object) => Rec;
      }
    ).createRecorder,
  })),
);
const cpu: number[][] = mods.map(() => []);
for (let r = 0; r < reps; r++) {
  for (const [m, mod] of mods.entries()) {
    const home = mkdtempSync(join(tmpdir(), 'talaria-bench-replay-'));
    const store = mod.openStore({ home });
    try {
      const key = store.sessions.create({ provider: 'bench', cwd: '/' }).id;
      const rec = mod.createRecorder(store, { sessionKey: key, thread: false });
      const c0 = process.cpuUsage();
      let n = 0;
      for (const [isFrame, v] of ops) {
        if (!isFrame) rec.onEvent(v);
        else {
          rec.onFrame(v);
          if (++n % 850 === 0) rec.flush();
        }
      }
      rec.flush();
      const c = process.cpuUsage(c0);
      cpu[m]!.push((c.user + c.system) / 1000);
      rec.close();
      if (store.wire.count(key) !== nFrames)
        throw new Error(`${mod.root}: stored ${store.wire.count(key)} of ${nFrames} frames`);
    } finally {
      store.close();
      rmSync(home, { recursive: true, force: true });
    }
  }
}
for (const [m, mod] of mods.entries()) {
  const s = [...cpu[m]!].sort((a, b) => a - b);
  process.stdout.write(
    `${mod.root}: median ${s[s.length >> 1]!.toFixed(0)} ms CPU for ${nFrames} frames (runs: ${cpu[m]!.map((x) => x.toFixed(0)).join(' ')})\n`,
  );
}
