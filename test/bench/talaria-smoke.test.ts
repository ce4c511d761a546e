import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { buildTemplates, envelopeFor, FRAME_TAIL } from '../../bench/flood-frames.js';
import { historyData } from '../../bench/history-data.js';
import { runIsolated } from '../../bench/isolate.js';
import { pgBin } from '../../bench/pg-cluster.js';
import { defaultStartupAgent } from '../../bench/startup.js';
import { talariaCases } from '../../bench/talaria-cases.js';
import { acpCases } from '../../bench/talaria-acp-cases.js';
import { runTalariaFlood } from '../../bench/talaria-flood.js';
import { isNotMeasured, samplesOf, type BenchOptions, type Sample } from '../../bench/types.js';
import { createThread, reduce } from '../../src/thread/index.js';
import type { Entry } from '../../src/thread/types.js';

// Correctness only: every Talaria case runs once with a tiny N and accounts for every frame.
// Never asserts on speed.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TINY: BenchOptions = {
  quick: true,
  frames: 400,
  pacedFrames: 100,
  pacedRate: 20_000,
  startupRuns: 1,
  startupAgent: defaultStartupAgent(),
  root: ROOT,
  historyEntries: 40,
  sessions: 3,
  processes: 2,
  idleSessions: 3,
  idleProcesses: 1,
};

/** Runs a case once; every sample it returns (one per pair for paired cases) is checked. */
async function runCase(name: string): Promise<Sample['values'][]> {
  const c = [...talariaCases, ...acpCases].find((x) => x.name === name);
  if (!c) throw new Error(`no case ${name}`);
  const m = await c.run(TINY);
  if (isNotMeasured(m)) throw new Error(`${name} not measured: ${m.notMeasured}`);
  const all = samplesOf(m);
  expect(all.length).toBeGreaterThan(0);
  for (const s of all) {
    for (const [k, v] of Object.entries(s.values)) expect(Number.isFinite(v), `${name} ${k}`).toBe(true);
    // Every metric the table shows is produced.
    for (const spec of c.metrics) expect(s.values, `${name} ${spec.key}`).toHaveProperty(spec.key);
  }
  return all.map((s) => s.values);
}

/** The single sample of an unpaired case. */
async function runSingle(name: string): Promise<Sample['values']> {
  const all = await runCase(name);
  expect(all).toHaveLength(1);
  return all[0]!;
}

describe('Talaria cases, once each with a tiny N', () => {
  it('core: every flooded frame reaches the subscriber as a thread event, in each of two pairs', async () => {
    const pairs = await runCase('talaria.core');
    expect(pairs).toHaveLength(2);
    for (const v of pairs) expect([v['framesSent'], v['framesSeen'], v['lost']]).toEqual([TINY.frames, TINY.frames, 0]);
  });

  it('core paced: every frame seen, each stamped (latency figures exist)', async () => {
    const pairs = await runCase('talaria.core.paced');
    expect(pairs).toHaveLength(2);
    for (const v of pairs) {
      expect([v['framesSent'], v['framesSeen'], v['lost']]).toEqual([TINY.pacedFrames, TINY.pacedFrames, 0]);
      expect(v['latP99Ms']).toBeGreaterThanOrEqual(0);
    }
  });

  it('talaria acp: every frame crosses the proxy, and the byte relay, in each pair (flood and paced)', async () => {
    const flood = await runCase('talaria.acp');
    expect(flood).toHaveLength(2);
    for (const v of flood) expect([v['framesSent'], v['framesSeen'], v['lost']]).toEqual([TINY.frames, TINY.frames, 0]);
    const paced = await runCase('talaria.acp.paced');
    expect(paced).toHaveLength(2);
    for (const v of paced) {
      expect([v['framesSent'], v['framesSeen'], v['lost']]).toEqual([TINY.pacedFrames, TINY.pacedFrames, 0]);
      expect(v['relayP99Ms']).toBeGreaterThanOrEqual(0);
      // The middle processes' CPU and CPU wait come from /proc, over one window (first update → result).
      if (process.platform === 'linux')
        for (const k of ['proxyCpuUsPerFrame', 'relayCpuUsPerFrame', 'proxyRunqueueMs', 'relayRunqueueMs'])
          expect(v[k], k).toBeGreaterThanOrEqual(0);
    }
  }, 300_000);

  it('store: every frame seen, and every frame and entry is in the store, in each of two pairs with a core run', async () => {
    const pairs = await runCase('talaria.store');
    expect(pairs).toHaveLength(2);
    for (const v of pairs) {
      expect([v['framesSent'], v['framesSeen'], v['lost'], v['framesMissing'], v['entriesMissing']]).toEqual([
        TINY.frames,
        TINY.frames,
        0,
        0,
        0,
      ]);
      expect(v['storedFrames']).toBe(TINY.frames + 6);
      expect(v['storedEntries']).toBeGreaterThan(0);
      expect(v['coreRatio']).toBeCloseTo(v['framesPerSec']! / v['coreFps']!, 9);
      expect(v['coreCpuRatio']).toBeGreaterThan(0);
    }
  });

  it.skipIf(!pgBin())(
    'store on PostgreSQL: every frame and entry in both stores, in each of two pairs with a SQLite run',
    async () => {
      const pairs = await runCase('talaria.store.pg');
      expect(pairs).toHaveLength(2);
      for (const v of pairs) {
        expect([v['framesSent'], v['lost'], v['framesMissing'], v['entriesMissing']]).toEqual([TINY.frames, 0, 0, 0]);
        expect([v['sqliteLost'], v['sqliteFramesMissing'], v['sqliteEntriesMissing']]).toEqual([0, 0, 0]);
        expect(v['pgRatio']).toBeCloseTo(v['framesPerSec']! / v['sqliteFps']!, 9);
        expect(v['commits']).toBeGreaterThan(0);
      }
    },
  );

  it('start-up: Talaria/SDK pairs on the demo agent, one sample each, wall and client CPU', async () => {
    const pairs = await runCase('talaria.startup');
    expect(pairs).toHaveLength(2 * TINY.startupRuns);
    for (const v of pairs) {
      expect(v['pairRatio']).toBeCloseTo(v['ms']! / v['sdkMs']!, 9);
      expect(v['cpuRatio']).toBeCloseTo(v['cpuMs']! / v['sdkCpuMs']!, 9);
    }
  });

  it('history load: the replay rebuilds exactly N entries, no frame lost', async () => {
    const v = await runSingle('talaria.history.load');
    expect(v['entries']).toBe(TINY.historyEntries);
    expect(v['framesSent']).toBe(historyData(TINY.historyEntries).frames);
    expect(v['lost']).toBe(0);
  });

  it('history stored: snapshot and wire log both rebuild exactly N entries', async () => {
    const v = await runSingle('talaria.history.stored');
    expect(v['entries']).toBe(TINY.historyEntries);
    expect(v['frames']).toBe(historyData(TINY.historyEntries).frames);
  });

  it('concurrency: frames sent == frames seen across sessions and processes', async () => {
    const v = await runSingle('talaria.concurrency');
    const perSession = Math.floor(TINY.frames / TINY.sessions);
    expect([v['framesSent'], v['framesSeen'], v['lost'], v['badSessions']]).toEqual([
      perSession * TINY.sessions,
      perSession * TINY.sessions,
      0,
      0,
    ]);
  });

  it('idle: the figure is the heap delta over exactly the sessions held while it was read', async () => {
    const v = await runSingle('talaria.idle');
    // The sign of a delta over 3 sessions is noise; what it is computed from is not.
    expect(v['sessions']).toBe(TINY.idleSessions);
    expect(v['liveSessions']).toBe(TINY.idleSessions + TINY.idleProcesses);
    expect(v['heapBefore']).toBeGreaterThan(0);
    expect(v['heapAfter']).toBeGreaterThan(0);
    expect(v['mbPerSession']).toBeCloseTo((v['heapAfter']! - v['heapBefore']!) / TINY.idleSessions / (1024 * 1024), 9);
    expect(v['kbPerSession']).toBeCloseTo(v['mbPerSession']! * 1024, 9);
  });

  it('an isolated case runs in a fresh process and reports back', async () => {
    const m = await runIsolated('talaria.history.stored', TINY);
    expect(isNotMeasured(m)).toBe(false);
    expect((m as Sample).values['entries']).toBe(TINY.historyEntries);
  });
});

describe('frame accounting can fail', () => {
  it('updates the core drops (mapUpdate → null) are counted lost', async () => {
    let i = 0;
    const r = await runTalariaFlood({ frames: 300, hooks: { mapUpdate: (u) => (++i % 3 === 0 ? null : u) } });
    expect(r.framesSent).toBe(300);
    expect(r.framesSeen).toBe(200);
  });

  it('the thread after a flood equals the same frames reduced offline', async () => {
    const n = 500;
    const r = await runTalariaFlood({ frames: n, keepThread: true });
    const turnId = r.thread!.entries[0]!.turnId!; // the session names its turns
    const thread = createThread();
    reduce(thread, { type: 'turn.started', turnId, prompt: [{ type: 'text', text: 'flood' }] });
    const env = envelopeFor('s');
    for (const t of buildTemplates(n)) {
      const msg = JSON.parse(env + t.body + '0' + FRAME_TAIL) as { params: { update: { sessionUpdate: string } } };
      reduce(thread, { type: 'update', update: msg.params.update });
    }
    reduce(thread, { type: 'turn.ended', turnId, outcome: 'completed' });
    // Stamps differ (tool calls keep `_meta`; the live session's clock times them), everything else must match entry for entry.
    const shape = (entries: readonly Entry[]) =>
      entries.map((e) => ({ ...e, _meta: undefined, startedAt: undefined, endedAt: undefined }));
    expect(r.entries).toBe(thread.entries.length);
    expect(shape(r.thread!.entries)).toEqual(shape(thread.entries));
    expect(r.thread!.plan).toEqual(thread.plan);
    expect(r.thread!.context).toEqual(thread.context);
  });
});
