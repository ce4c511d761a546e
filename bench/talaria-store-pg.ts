/**
 * "Talaria + store" on PostgreSQL against SQLite in the same run (issue 39): the flood of
 * talaria-store.ts recorded into a database of a throwaway local cluster (pg-cluster.ts, a unix
 * socket) and into a SQLite store in a temporary home, in pairs (pg, sqlite, then sqlite, pg), so
 * a pair shares the machine's load and the ratio is taken within it. SQLite commits on the
 * recorder's writer thread; PostgreSQL has none (each commit waits for the server on the main
 * thread), so its commits are timed too. Each run has a fresh database; the cluster is removed
 * when the case ends, fails, or the process is interrupted.
 */
import { floodSample } from './flood-driver.js';
import { pgBin, startCluster, type Cluster } from './pg-cluster.js';
import { runTalariaStoreFlood, type StoreFloodResult } from './talaria-store.js';
import type { NotMeasured, Sample, SampleSet } from './types.js';

const median = (a: number[]): number => (a.length ? [...a].sort((x, y) => x - y)[a.length >> 1]! : NaN);

/** Removes `c` when the process exits or is interrupted before the case's own cleanup ran; returns the unhook. */
function removeOnExit(c: Cluster): () => void {
  const onExit = () => c.destroy();
  const onSignal = (sig: NodeJS.Signals) => {
    unhook();
    c.destroy();
    process.kill(process.pid, sig); // the default action, now that the handler is gone
  };
  const unhook = () => {
    process.off('exit', onExit);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.once('exit', onExit);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return unhook;
}

function sample(pg: StoreFloodResult, lite: StoreFloodResult): Sample {
  const f = floodSample(pg);
  const values = {
    ...f.values,
    sqliteFps: lite.framesPerSec,
    pgRatio: pg.framesPerSec / lite.framesPerSec,
    pgCpuRatio: pg.framesPerCpuSec / lite.framesPerCpuSec,
    commits: pg.commitMs.length,
    commitMs: median(pg.commitMs),
    commitMaxMs: Math.max(0, ...pg.commitMs),
    framesPerCommit: median(pg.commitFrames),
    framesMissing: pg.framesMissing,
    entriesMissing: pg.entriesMissing,
    sqliteLost: lite.framesSent - lite.framesSeen,
    sqliteFramesMissing: lite.framesMissing,
    sqliteEntriesMissing: lite.entriesMissing,
  };
  return { values, notes: f.notes ?? [] };
}

/** Two pairs of runs; with `warmup`, one full-size run of each first, not counted (as runStorePairs). */
export async function runStorePgPairs(frames: number, o: { warmup?: boolean } = {}): Promise<SampleSet | NotMeasured> {
  if (!pgBin())
    return { notMeasured: 'PostgreSQL is not installed (Debian: apt-get install postgresql)', reason: 'skipped' };
  const cluster = startCluster();
  const unhook = removeOnExit(cluster);
  try {
    let n = 0;
    const pg = async () => {
      const db = `bench_${++n}`;
      cluster.sql(`CREATE DATABASE ${db}`);
      try {
        return await runTalariaStoreFlood({ frames, url: cluster.urlOf(db) });
      } finally {
        // The store's connection closes on its own thread: FORCE ends it if it has not yet. A
        // database left behind goes with the cluster; the run's own error is the one to see.
        try {
          cluster.sql(`DROP DATABASE ${db} WITH (FORCE)`);
        } catch {
          /* removed with the cluster */
        }
      }
    };
    const lite = () => runTalariaStoreFlood({ frames });
    if (o.warmup) {
      await pg();
      await lite();
    }
    const p1 = await pg();
    const s1 = await lite();
    const s2 = await lite();
    const p2 = await pg();
    return { samples: [sample(p1, s1), sample(p2, s2)] };
  } finally {
    unhook();
    cluster.destroy();
  }
}
