import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { lockdownTests } from './test/isolation.js';

// Files whose imports reach SES's lockdown (test/isolation.ts): each runs in a process of its own.
const LOCKDOWN = lockdownTests(fileURLToPath(new URL('.', import.meta.url)));

export default defineConfig({
  test: {
    // Tests spawn real child processes; two cores here, so keep the pool modest. Vitest's default
    // (cores − 1) is one worker on a 2-core machine, idle while a test waits on its agent processes:
    // two workers took the suite from one file at a time to ~1.7 files at a time (2,289 s of test
    // time in 1,326 s wall, all 2,444 passing, with two other jobs loading the machine).
    pool: 'forks',
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A leaked unhandled rejection or uncaught exception fails the test that leaked it.
    setupFiles: ['test/leak-trap.ts'],
    // Fake agents and test children run as prebuilt bundles, not through tsx (test/prebuilt.ts).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      // A worker process runs file after file: a fresh process per file spent ~1 s loading modules
      // for each of 366 files (test/server alone: 81 s → 50 s). Test files are still evaluated
      // afresh; the modules they import are shared.
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: LOCKDOWN, isolate: false } },
      // Lockdown freezes the process's intrinsics for every later file in it: these stay apart.
      { extends: true, test: { name: 'lockdown', include: LOCKDOWN } },
    ],
  },
});
