import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests spawn real child processes; two cores here, so keep the pool modest.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
