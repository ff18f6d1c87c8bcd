import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import SlowFirst from './test/setup/slow-first.ts';

/**
 * Test files run in parallel, at least four at a time: they spend much of their time waiting on servers, child
 * processes, Chromium and databases, so vitest's default for `run` (one fewer than the cores: one file at a time on
 * a 2-core machine) leaves the CPU idle; with three the 2-core machine still idled ~25 % of the run, with four it
 * does not. CATI_TEST_WORKERS overrides it.
 */
const WORKERS = Number(process.env.CATI_TEST_WORKERS) || Math.max(4, availableParallelism());

/**
 * Three projects: `sqlite` runs the unit tests and the API suite over a real server on a SQLite file, `e2e` the
 * screens in Chromium (on SQLite);
 * `postgres` runs the API suite again with every test server on a fresh PostgreSQL database of the run's
 * cluster (docs/deployment.md#postgresql: the same API, with the same answers, on both engines). Tests that are SQLite-only by
 * nature skip themselves there (test/helpers/engine.ts); the files excluded below start `serve` processes on a
 * data dir of their own, which is the SQLite default by definition.
 */
export default defineConfig({
  test: {
    // Twice the longest wait of one step (a Playwright step gives up after 15 s, test/e2e/ui-harness.ts, and a poll
    // of a locator whose element never comes can take two of those), so a step that waits in vain fails with its own
    // words (the locator, the call log) rather than the test timing out with none.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for what a screen or a restarting server will show; on a busy 2-core machine (vitest runs
    // files in parallel) that can take longer than the default second. Failing polls wait longer; passing ones do not.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // Each worker process runs its files one after another in one module cache instead of a fresh one per file:
    // importing the server (Express, pg, the OData compiler, ...) again for every file was ~40% of the CPU of the
    // API suite, and the e2e files share one Chromium per worker (test/e2e/ui-harness.ts). Nothing may outlive its
    // file: test/setup/leak-guard.ts fails a file that leaves an environment variable, a process listener, a
    // patched pg method, fake timers or a listening server behind. CATI_TEST_ISOLATE=1 isolates every file again.
    isolate: process.env.CATI_TEST_ISOLATE === '1',
    // worker-build first: the leak guard takes the environment as the file starts, with CATI_WORKER_BUILD set.
    setupFiles: ['test/setup/worker-build.ts', 'test/setup/leak-guard.ts', 'test/setup/e2e-failure-report.ts'],
    maxWorkers: WORKERS,
    // The slowest files first (test/setup/slow-first.ts): a fresh clone has no durations for vitest to order by.
    sequence: { sequencer: SlowFirst },
    // One PostgreSQL cluster per run, shared by both projects (test/global-setup.ts), removed when the run ends.
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'sqlite', include: ['test/unit/**/*.test.ts', 'test/api/**/*.test.ts'] },
      },
      {
        extends: true,
        // The screens in Chromium, on SQLite. Under CI a failed test runs once more, as Playwright's own runner
        // does on CI: a browser test on a loaded machine can miss a moment that a second run does not, and a
        // CI log is all there is of such a run. The first attempt's report (test/setup/e2e-failure-report.ts)
        // stays in the log; a test that fails twice fails the run.
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], retry: process.env.CI === 'true' ? 1 : 0 },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/api/**/*.test.ts'],
          // optout-import-hostile: upload guards (zip bombs, multipart, the upload dir) that refuse before anything
          // reaches the database, so the engine does not enter; its `nothing stored` checks run on SQLite.
          exclude: ['test/api/cli.test.ts', 'test/api/crash-safety.test.ts', 'test/api/demo-live.test.ts', 'test/api/optout-import-hostile.test.ts'],
          env: { CATI_TEST_DATABASE: 'postgres' },
        },
      },
    ],
  },
});
