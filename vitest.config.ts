import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests spawn real child processes; two cores here, so keep the pool modest.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A leaked unhandled rejection or uncaught exception fails the test that leaked it.
    setupFiles: ['test/leak-trap.ts'],
  },
});
