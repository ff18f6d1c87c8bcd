/**
 * Scrub benchmark (`npm run bench -- scrub`, CONTRACT §16): a call list of SCRUB_ROWS rows (default
 * 1,000,000; 10 % Equal hits, 5 % StartWith hits, a few invalid) scrubbed against a blacklist of SCRUB_LIST
 * entries (default 1,000,000: 1 % of them StartWith prefixes) through the real job engine (parse worker,
 * in-memory index, kept/removed files) on SQLite, in process. Reported: rows/s end to end (upload on disk →
 * both files written), the peak RSS of the process (worker included) and the longest event-loop delay;
 * against a bare baseline in the same run: better-sqlite3 loading the same (already normalised) numbers
 * into a temp table and joining it with the blacklist (Equal, then each StartWith length).
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { blacklistList } from '../../server/cati/scrub-routes.ts';
import { defaultConfig } from '../../server/config.ts';
import type { AppContext } from '../../server/context.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { ScrubService } from '../../server/scrub/scrub-service.ts';
import { report } from './bench-tools.ts';

const ROWS = Number(process.env.SCRUB_ROWS ?? 1_000_000);
const LIST = Number(process.env.SCRUB_LIST ?? 1_000_000);
const PREFIXES = Math.max(1, Math.floor(LIST / 100));
const dir = mkdtempSync(join(tmpdir(), 'scrub-bench-'));
const store = SqliteStore.open(join(dir, 'cati.sqlite'));
const db = store.db;
const equalNumber = (i: number) => `31${String(600_000_000 + i * 7)}`;
const prefixOf = (i: number) => `4${String(10_000 + i)}`;
/** Row i's number: 10 % Equal hits, 5 % StartWith hits, 1 % empty (invalid), the rest misses. */
const phoneOf = (i: number) => {
  const r = i % 20;
  if (r < 2) return equalNumber((i * 13) % (LIST - PREFIXES));
  if (r === 2) return `${prefixOf(i % PREFIXES)}${String(i).padStart(6, '0')}`;
  if (i % 100 === 3) return '';
  return `5${String(700_000_000 + i)}`;
};

try {
  const insert = db.prepare('INSERT INTO blacklist (telephone_number, type, comment, created) VALUES (?, ?, NULL, 0)');
  db.transaction(() => {
    for (let i = 0; i < LIST - PREFIXES; i++) insert.run(equalNumber(i), 'Equal');
    for (let i = 0; i < PREFIXES; i++) insert.run(prefixOf(i), 'StartWith');
  })();
  const file = join(dir, 'list.csv');
  writeFileSync(file, 'Id,Name,Phone\n');
  for (let from = 0; from < ROWS; from += 10_000) {
    let chunk = '';
    for (let i = from; i < Math.min(ROWS, from + 10_000); i++) chunk += `${i},Person ${i},${phoneOf(i) || 'n/a'}\n`;
    appendFileSync(file, chunk);
  }

  const ctx = { store, dbFile: join(dir, 'cati.sqlite'), config: defaultConfig({ dataDir: dir }) } as unknown as AppContext;
  const service = new ScrubService(ctx);
  const principal = { keyId: null, name: 'bench', permissions: new Set(['company_administrate'] as const), projects: null };
  const eld = monitorEventLoopDelay({ resolution: 5 });
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25);
  eld.enable();
  const stalls: string[] = [];
  let last = performance.now();
  const drift = setInterval(() => {
    const now = performance.now();
    if (now - last > 60 && stalls.length < 10) stalls.push(`${Math.round(now - last)} ms at ${Math.round(now - started)} ms (processed ${accepted.processed ?? 'not accepted'})`);
    last = now;
  }, 10);
  const accepted: { processed?: number } = {};
  const started = performance.now();
  const job = await service.start('phone', principal, { keyId: null, name: 'bench' }, 'list.csv', async () => 'text', {
    filePath: file, region: null, list: blacklistList(ctx),
  });
  const deadline = Date.now() + 600_000;
  while (job.state === 'running' && Date.now() < deadline) {
    accepted.processed = job.processed;
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  eld.disable();
  clearInterval(sampler);
  clearInterval(drift);
  if (stalls.length) console.log(`  event-loop stalls over 60 ms: ${stalls.join('; ')}`);
  if (job.state !== 'done') throw new Error(`scrub ended ${job.state}: ${job.error}`);

  // Baseline: the same normalised numbers into a temp table, joined with the blacklist by bare better-sqlite3.
  const t0 = performance.now();
  db.exec('CREATE TEMP TABLE scrub_rows (n INTEGER PRIMARY KEY, phone TEXT NOT NULL)');
  const add = db.prepare('INSERT INTO scrub_rows (n, phone) VALUES (?, ?)');
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) {
      const p = phoneOf(i);
      if (p !== '') add.run(i, p);
    }
  })();
  let removed = db.prepare("SELECT count(*) FROM scrub_rows r JOIN blacklist b ON b.telephone_number = r.phone AND b.type = 'Equal'").pluck().get() as number;
  const lengths = db.prepare("SELECT DISTINCT length(telephone_number) FROM blacklist WHERE type = 'StartWith'").pluck().all() as number[];
  for (const len of lengths) {
    removed += db
      .prepare(
        `SELECT count(*) FROM scrub_rows r JOIN blacklist b ON b.type = 'StartWith' AND b.telephone_number = substr(r.phone, 1, ${len})
         WHERE NOT EXISTS (SELECT 1 FROM blacklist e WHERE e.type = 'Equal' AND e.telephone_number = r.phone)`,
      )
      .pluck()
      .get() as number;
  }
  const bareSeconds = (performance.now() - t0) / 1000;

  console.log(`  ${ROWS.toLocaleString('en-US')} rows against ${LIST.toLocaleString('en-US')} entries (${PREFIXES.toLocaleString('en-US')} StartWith): kept ${job.kept}, removed ${job.removed}, invalid ${job.invalid}; bare join removed ${removed}`);
  report('Scrub throughput (end to end)', ROWS / seconds, 'rows/s', ROWS / bareSeconds, '≥ 200,000 rows/s', ROWS / seconds >= 200_000);
  report('Scrub peak RSS (process, worker included)', peak / 1024 / 1024, 'MB', null, '< 400 MB', peak / 1024 / 1024 < 400);
  report('Scrub longest event-loop delay', eld.max / 1e6, 'ms', null, '≤ 50 ms', eld.max / 1e6 <= 50);
  await service.remove(job);
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
