import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCluster, sweepClusters } from './cluster.js';

describe('throwaway clusters left by a killed run', () => {
  it('are stopped and removed when their starting process is gone; live ones are kept', () => {
    const mine = startCluster();
    const orphan = startCluster();
    try {
      // As if the process that started it had been killed before its cleanup: a pid that has exited.
      const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
      writeFileSync(join(orphan.dir, 'owner.pid'), String(gone));
      const pidFile = join(orphan.dir, 'data', 'postmaster.pid');
      expect(existsSync(pidFile)).toBe(true);
      const swept = sweepClusters();
      expect(swept).toContain(orphan.dir);
      expect(swept).not.toContain(mine.dir);
      expect(existsSync(orphan.dir)).toBe(false);
      // Its server is gone, not only its folder.
      expect(spawnSync('pgrep', ['-f', join(orphan.dir, 'data')]).status).toBe(1);
      // Ours still answers.
      expect(() => mine.sql('SELECT 1')).not.toThrow();
    } finally {
      mine.destroy();
      orphan.destroy();
    }
  });
});
