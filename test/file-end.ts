/**
 * Cleanup that shared test helpers run after every test file. Files share worker processes
 * (vitest.config.ts, isolate: false), so a helper module is evaluated once per process: an
 * `afterAll` it registered at load would run after the first file that imported it only (later
 * files' agents, servers and temp dirs would outlive them). test/leak-trap.ts, a setup file run
 * for every file, runs these after each file's own hooks.
 */
const hooks: (() => unknown)[] = [];

/** Runs `fn` after each test file (after its own afterAll hooks). */
export function afterFile(fn: () => unknown): void {
  hooks.push(fn);
}

/**
 * Every hook runs, last registered first as vitest runs afterAll hooks (a server closes before the
 * harness under it); the first failure is rethrown afterwards.
 */
export async function runAfterFile(): Promise<void> {
  const failures: unknown[] = [];
  for (const fn of [...hooks].reverse()) {
    try {
      await fn();
    } catch (e) {
      failures.push(e);
    }
  }
  if (failures.length > 0) throw failures[0];
}
