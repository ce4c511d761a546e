/**
 * Recorder time: N flood frames (session/update chunks, each with its raw line) and one
 * entry.updated per frame, fed to the store recorder in bursts of 64 then committed — the way the
 * transport delivers them tick by tick. Runs against any checkout, so the same command measures
 * before and after a change to the recorder:
 *   npx tsx bench/recorder-time.ts [checkout root] [frames] [reps]
 * (older checkouts keep the recorder in src/store/recorder.ts, newer ones in src/harness/).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './flood-driver.js';

type Rec = { onFrame(f: unknown): void; onEvent(e: unknown): void; flush(): void; close(): void };

export interface RecorderTime {
  /** Median over the repetitions. */
  ms: number;
  all: number[];
  frames: number;
  recorder: string;
}

export async function recorderTime(root = ROOT, frames = 100_000, reps = 5): Promise<RecorderTime> {
  const { openStore } = await import(pathToFileURL(join(root, 'src/store/index.ts')).href);
  const recorder = existsSync(join(root, 'src/harness/recorder.ts'))
    ? 'src/harness/recorder.ts'
    : 'src/store/recorder.ts';
  const { createRecorder } = (await import(pathToFileURL(join(root, recorder)).href)) as {
    createRecorder: (s: unknown, o: { sessionKey: string }) => Rec;
  };
  const tapped = Array.from({ length: frames }, (_, i) => {
    const msg = {
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: 'flood-1',
        update: {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: `chunk ${i} of the flood, a few words of text ` },
        },
      },
    };
    return { dir: 'agent->client', t_ms: i, msg, raw: JSON.stringify(msg) };
  });
  const all: number[] = [];
  for (let r = 0; r < reps; r++) {
    const home = mkdtempSync(join(tmpdir(), 'talaria-bench-rec-'));
    const store = openStore({ home });
    try {
      store.sessions.create({ id: 's', provider: 'bench', cwd: '/' });
      const rec = createRecorder(store, { sessionKey: 's' });
      const t0 = performance.now();
      for (let i = 0; i < frames; i += 64) {
        for (let j = i; j < Math.min(frames, i + 64); j++) {
          rec.onFrame(tapped[j]);
          rec.onEvent({
            type: 'entry.updated',
            sessionId: 'flood-1',
            seq: j,
            at: j,
            index: 0,
            entry: { id: 'e0', kind: 'assistant_message', text: 'x', blocks: [] },
          });
        }
        rec.flush();
      }
      all.push(performance.now() - t0);
      rec.close();
      if (store.wire.count('s') !== frames)
        throw new Error(`recorder lost frames: ${store.wire.count('s')} of ${frames}`);
    } finally {
      store.close();
      rmSync(home, { recursive: true, force: true });
    }
  }
  const sorted = [...all].sort((a, b) => a - b);
  return { ms: sorted[Math.floor(sorted.length / 2)]!, all, frames, recorder };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [root, frames, reps] = process.argv.slice(2);
  const r = await recorderTime(root ? resolve(root) : ROOT, Number(frames ?? 100_000), Number(reps ?? 5));
  process.stdout.write(
    `${r.recorder}: median ${r.ms.toFixed(0)} ms for ${r.frames} frames (runs: ${r.all.map((x) => x.toFixed(0)).join(' ')})\n`,
  );
}
