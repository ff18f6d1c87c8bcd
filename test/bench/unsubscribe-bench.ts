/**
 * Unsubscribe page benchmark (`npm run bench -- unsubscribe`): GET /unsubscribe (the company's default page)
 * with the per-address limit raised (as `--unsubscribe-rate-limit 1000000000` does), against a bare Node
 * http server answering a fixed small HTML page, both in worker threads, measured in the same run.
 * Goal: ≥ 5,000 req/s. Bounded: 5 s per measurement, 2 rounds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig } from '../../server/config.ts';
import { report, startWorker, throughput } from './bench-tools.ts';

const dir = mkdtempSync(join(tmpdir(), 'unsubscribe-bench-'));
try {
  const raised = { ...defaultConfig().rateLimits, pages: { limit: 1_000_000_000, windowMs: 60_000 } };
  const app = await startWorker({ mode: 'app', dataDir: dir, key: 'bench-key-0123456789abcdef', config: { rateLimits: raised } });
  const bare = await startWorker({ mode: 'page', dataDir: dir, key: '' });
  try {
    let best = { app: 0, bare: 0 };
    for (let round = 0; round < 2; round++) {
      const a = await throughput(`${app.url}/unsubscribe`, 5, 8);
      const b = await throughput(`${bare.url}/unsubscribe`, 5, 8);
      if (a > best.app) best = { app: a, bare: b };
    }
    report('GET /unsubscribe throughput (limit raised)', best.app, 'req/s', best.bare, '≥ 5,000 req/s', best.app >= 5000);
  } finally {
    await Promise.allSettled([app.close(), bare.close()]);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
