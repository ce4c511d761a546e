/**
 * Checkpoints off the event loop (store/checkpoints.ts): every so many bytes committed on the main
 * connection, the store's writer thread copies the WAL into the database on its own connection;
 * the main thread checkpoints only when the thread cannot run; closing waits for the thread.
 */
import { describe, it, expect, vi } from 'vitest';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { backgroundCheckpoints } from '../../src/store/checkpoints.js';
import { openStore, type Store } from '../../src/store/index.js';
import { backgroundCheckpointCount } from '../../src/store/sqlite.js';
import { emptyEntryColumns, type WriterBatch } from '../../src/store/writer-batch.js';
import { tempHome } from './helpers.js';

const MiB = 1024 * 1024;

/** One batch of `n` frames of `size` characters each. */
function batch(key: string, n: number, size: number): WriterBatch {
  const line = JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { t: 'y'.repeat(size - 40) } });
  return {
    key,
    frames: {
      t: Array<number>(n).fill(1),
      dir: Array<string>(n).fill('agent->client'),
      line: Array<string>(n).fill(line),
    },
    entries: emptyEntryColumns(),
    rest: '',
  };
}

const size = (f: string): number => (existsSync(f) ? statSync(f).size : 0);

function store(home: string, everyBytes: number): { s: Store; key: string } {
  const s = openStore({ home, checkpointEveryBytes: everyBytes });
  return { s, key: s.sessions.create({ provider: 'demo', cwd: home }).id };
}

describe('checkpoints off the event loop', () => {
  it('the writer thread copies the WAL into the database while the main connection only commits', async () => {
    const home = tempHome('ckpt');
    const { s, key } = store(home, 2 * MiB);
    const db = join(home, 'talaria.db');
    const before = size(db);
    for (let round = 1; round <= 10; round++) {
      s.commitBatch(batch(key, 512, 1024)); // ~0.5 MiB
      s.commitBatch(batch(key, 512, 1024));
      s.commitBatch(batch(key, 512, 1024));
      s.commitBatch(batch(key, 512, 1024)); // 2 MiB: a checkpoint asked for
      await vi.waitFor(() => expect(backgroundCheckpointCount(s)).toBe(round), { timeout: 15_000 });
    }
    // SQLite's own bound (64 MiB) never came near: only the thread can have copied pages in.
    expect(size(db) - before).toBeGreaterThan(15 * MiB);
    // Each copy was whole, so the next commit started the WAL over instead of growing it to 20 MiB.
    expect(size(join(home, 'talaria.db-wal'))).toBeLessThan(8 * MiB);
    expect(s.wire.count(key)).toBe(10 * 4 * 512);
    s.close();
    // The thread closed its connection before close returned, and the main one, last, removed the WAL.
    expect(readdirSync(home).filter((f) => f.startsWith('talaria.db'))).toEqual(['talaria.db']);
  }, 60_000);

  it('below the threshold no thread starts', () => {
    const home = tempHome('ckpt-small');
    const { s, key } = store(home, 64 * MiB);
    s.commitBatch(batch(key, 64, 1024));
    expect(backgroundCheckpointCount(s)).toBe(0);
    s.close();
  });

  it('a thread that cannot open the database leaves the checkpoint to the main connection', async () => {
    const warns: string[] = [];
    const here = vi.fn();
    const c = backgroundCheckpoints({
      path: join(tempHome('ckpt-missing'), 'no', 'such', 'dir', 'talaria.db'),
      everyBytes: 1,
      here,
      logger: { debug() {}, info() {}, warn: (m: string) => void warns.push(m), error() {} },
    });
    c.committed(batch('k', 1, 100)); // the thread starts; the request waits for it
    await vi.waitFor(
      () =>
        expect(warns).toEqual(['store: the writer thread could not open the database; recording on the main thread']),
      { timeout: 15_000 },
    );
    expect(here).not.toHaveBeenCalled();
    c.committed(batch('k', 1, 100));
    expect(here).toHaveBeenCalledTimes(1);
    c.close();
    c.committed(batch('k', 1, 100)); // closed: nothing more
    expect(here).toHaveBeenCalledTimes(1);
  });
});
