/**
 * History: a session of 10,000 entries brought back two ways, each timed with its peak heap.
 *  - load replay: `AcpClient.loadSession` while the flood agent replays the session's updates
 *    (`session/load`), from the request to its answer, every update reduced into the thread;
 *  - stored replay: the store (SQLite) written as the recorder would leave it, then a fresh
 *    `openStore` → `entries.loadSnapshot` → `threadFromSnapshot`; and, as the slow path, the
 *    session's stored wire log re-reduced update by update into a new thread.
 * Both check the rebuilt thread holds exactly 10,000 entries.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AcpClient } from '../src/session/client.js';
import { createThread, reduce, snapshot, threadFromSnapshot } from '../src/thread/index.js';
import type { RawMessage, WireLogLine } from '../src/protocol/types.js';
import { ROOT } from './flood-driver.js';
import { historyData } from './history-data.js';
import { MB, PeakHeap, fullGc, heapUsed } from './memory.js';
import { floodCommand } from './talaria-flood.js';
import { UpdateProbe } from './talaria-probe.js';

const SAMPLE_EVERY = 1000;

export interface LoadReplayResult {
  ms: number;
  peakMb: number;
  /** Heap still held after a collection: the loaded thread itself. */
  retainedMb: number;
  entries: number;
  framesSent: number;
  framesSeen: number;
}

export async function runLoadReplay(entries: number): Promise<LoadReplayResult> {
  const frames = historyData(entries).frames; // only the count: the agent renders the same mix
  const probe = new UpdateProbe(frames, false);
  // The agent renders the replay's bytes before it answers initialize: the timed window is the client's.
  const client = await AcpClient.spawn(floodCommand({ frames }, ['--prebuild-load', '--load-session', 'history-1']), {
    fs: false,
    terminal: false,
    onFrame: probe.onFrame,
  });
  const peak = new PeakHeap();
  try {
    let n = 0;
    // The session subscribes before the replay starts: hook the bus of every client session.
    client.subscribe((e) => {
      probe.onEvent(e);
      if (++n % SAMPLE_EVERY === 0) peak.sample();
    });
    peak.start();
    const t0 = performance.now();
    const session = await client.loadSession('history-1', { cwd: ROOT });
    const ms = performance.now() - t0;
    peak.sample();
    const got = session.thread.entries.length;
    if (got !== entries) throw new Error(`load replay: thread has ${got} entries, expected ${entries}`);
    fullGc();
    const retainedMb = (heapUsed() - peak.baseBytes) / MB;
    return {
      ms,
      peakMb: peak.peakMb,
      retainedMb,
      entries: got,
      framesSent: probe.framesSent ?? -1,
      framesSeen: probe.seen,
    };
  } finally {
    await client.close();
  }
}

export interface StoredReplayResult {
  /** Fresh store → loadSnapshot → threadFromSnapshot. */
  ms: number;
  peakMb: number;
  /** Stored wire log → JSON.parse → reduce, update by update. */
  reduceMs: number;
  reducePeakMb: number;
  entries: number;
  frames: number;
}

export async function runStoredReplay(entries: number): Promise<StoredReplayResult> {
  // Imported here so that a store under construction only breaks the cases that use it.
  const { openStore } = await import('../src/store/index.js');
  const home = await mkdtemp(join(tmpdir(), 'talaria-bench-history-'));
  try {
    let id: string;
    let frames: number;
    {
      const data = historyData(entries);
      frames = data.frames;
      const store = openStore({ home });
      id = store.sessions.create({ provider: 'bench-flood', cwd: ROOT, agentSessionId: 'history' }).id;
      const lines: WireLogLine[] = data.lines.map((l) => ({
        t_ms: 0,
        dir: 'agent->client',
        msg: JSON.parse(l) as RawMessage,
      }));
      store.wire.append(id, lines);
      store.entries.saveSnapshot(id, snapshot(data.thread));
      store.close();
    }

    // Snapshot path: what resuming a stored session costs.
    const peak = new PeakHeap();
    peak.start();
    let t0 = performance.now();
    const store = openStore({ home });
    try {
      const snap = store.entries.loadSnapshot(id);
      peak.sample();
      const thread = threadFromSnapshot(snap);
      const ms = performance.now() - t0;
      peak.sample();
      if (thread.entries.length !== entries)
        throw new Error(`stored replay: snapshot gave ${thread.entries.length} entries, expected ${entries}`);

      // Wire-log path: rebuild the thread from the raw updates (a store without snapshot, or a fixture).
      const rpeak = new PeakHeap();
      rpeak.start();
      t0 = performance.now();
      const rebuilt = createThread();
      let n = 0;
      for (const row of store.wire.iterate(id)) {
        const msg = JSON.parse(row.msg) as { method?: string; params?: { update?: { sessionUpdate: string } } };
        if (msg.method === 'session/update' && msg.params?.update)
          reduce(rebuilt, { type: 'update', update: msg.params.update });
        if (++n % SAMPLE_EVERY === 0) rpeak.sample();
      }
      const reduceMs = performance.now() - t0;
      rpeak.sample();
      if (rebuilt.entries.length !== entries)
        throw new Error(`stored replay: wire log gave ${rebuilt.entries.length} entries, expected ${entries}`);
      return { ms, peakMb: peak.peakMb, reduceMs, reducePeakMb: rpeak.peakMb, entries, frames };
    } finally {
      store.close();
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
