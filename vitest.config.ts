import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/api/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for what a screen or a restarting server will show; on a busy 2-core machine (vitest runs
    // files in parallel) that can take longer than the default second. Failing polls wait longer; passing ones do not.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // One PostgreSQL cluster per run for the PostgreSQL engine's tests (test/helpers/postgres.ts).
    globalSetup: ['test/global-setup.ts'],
  },
});
