/**
 * The worker threads of the in-process test servers start from the server compiled once per run
 * (test/global-setup.ts, helpers/compiled-server.ts) instead of registering tsx in each worker
 * (server/db/start-worker.ts): ~200 worker starts a run, each half the CPU. test/unit/start-worker.test.ts starts
 * workers both ways.
 */
import { inject } from 'vitest';

process.env.CATI_WORKER_BUILD ??= inject('serverBuild');
