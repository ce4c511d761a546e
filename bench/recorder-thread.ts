/**
 * The recorder's cost on the event loop, inline against the writer thread, in the same run:
 * N flood frames (session/update chunks with their raw lines) and one entry.updated per frame
 * (one reply whose text grows, as a streamed turn does), fed in ticks of 850 frames (a flood's
 * tick) with the event loop turning between them, then one synchronous flush. Reports, per mode,
 * the main thread's busy time (event-loop utilisation, so the writer thread's own work is not
 * in it) and the wall time until everything is on disk.
 *   npx tsx bench/recorder-thread.ts [frames] [reps]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createRecorder } from '../src/harness/recorder.js';
import type { Frame } from '../src/protocol/types.js';
import type { SessionEvent } from '../src/session/events.js';
import { openStore } from '../src/store/index.js';

const TICK = 850;

export interface ModeTime {
  /** Main-thread busy ms per 100k frames (median). */
  busyMs: number;
  /** Wall ms per 100k frames until the last frame is committed (median). */
  wallMs: number;
}

const tick = () => new Promise<void>((r) => setImmediate(r));

async function once(thread: boolean, frames: Frame[]): Promise<{ busy: number; wall: number }> {
  const home = mkdtempSync(join(tmpdir(), 'talaria-bench-recthread-'));
  const store = openStore({ home });
  try {
    store.sessions.create({ id: 's', provider: 'bench', cwd: '/' });
    const rec = createRecorder(store, { sessionKey: 's', thread });
    // The thread starts with the recorder; a session's handshake gives it the same head start.
    for (let i = 0; thread && !rec.threaded && i < 2000; i++) await new Promise((r) => setTimeout(r, 5));
    if (thread && !rec.threaded) throw new Error('the writer thread did not start');
    let text = '';
    const elu0 = performance.eventLoopUtilization();
    const t0 = performance.now();
    for (let i = 0; i < frames.length; i += TICK) {
      for (let j = i; j < Math.min(frames.length, i + TICK); j++) {
        rec.onFrame(frames[j]!);
        text += 'chunk ';
        const entry = { id: 'e0', kind: 'assistant_message', text, blocks: [], turnId: 't' };
        rec.onEvent({
          type: 'entry.updated',
          sessionId: 'flood-1',
          seq: j,
          at: j,
          index: 0,
          entry,
        } as unknown as SessionEvent);
      }
      await tick();
    }
    rec.flush();
    const wall = performance.now() - t0;
    const busy = performance.eventLoopUtilization(elu0).active;
    rec.close();
    if (store.wire.count('s') !== frames.length)
      throw new Error(`lost frames: ${store.wire.count('s')} of ${frames.length}`);
    return { busy, wall };
  } finally {
    store.close();
    rmSync(home, { recursive: true, force: true });
  }
}

export async function recorderThreadTime(
  n = 100_000,
  reps = 5,
): Promise<{ inline: ModeTime; thread: ModeTime; ratio: number }> {
  const frames: Frame[] = Array.from({ length: n }, (_, i) => {
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
    return { dir: 'agent->client', t_ms: i, msg, raw: JSON.stringify(msg) } as Frame;
  });
  const runs: Record<'inline' | 'thread', { busy: number[]; wall: number[] }> = {
    inline: { busy: [], wall: [] },
    thread: { busy: [], wall: [] },
  };
  for (let r = 0; r < reps; r++) {
    // Alternating order, so a load change hits both modes alike.
    for (const mode of r % 2 === 0 ? (['inline', 'thread'] as const) : (['thread', 'inline'] as const)) {
      const x = await once(mode === 'thread', frames);
      runs[mode].busy.push((x.busy * 100_000) / n);
      runs[mode].wall.push((x.wall * 100_000) / n);
    }
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  const inline = { busyMs: med(runs.inline.busy), wallMs: med(runs.inline.wall) };
  const thread = { busyMs: med(runs.thread.busy), wallMs: med(runs.thread.wall) };
  return { inline, thread, ratio: thread.busyMs / inline.busyMs };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [frames, reps] = process.argv.slice(2);
  const r = await recorderThreadTime(Number(frames ?? 100_000), Number(reps ?? 5));
  const f = (m: ModeTime) => `event loop busy ${m.busyMs.toFixed(0)} ms, wall ${m.wallMs.toFixed(0)} ms`;
  process.stdout.write(
    `per 100k frames (medians)\n  inline: ${f(r.inline)}\n  thread: ${f(r.thread)}\n  thread/inline event-loop time: ${r.ratio.toFixed(2)}×\n`,
  );
}
