/**
 * Scrub benchmark (`npm run bench -- scrub`, docs/cati-api.md#scrubs): a call list of SCRUB_ROWS rows (default
 * 1,000,000; 10 % Equal hits, 5 % StartWith hits, a few invalid) scrubbed against a blacklist of SCRUB_LIST
 * entries (default 1,000,000: 1 % of them StartWith prefixes) through the real job engine (parse worker,
 * its in-memory index, kept/removed files) in process, on SQLite and then on PostgreSQL (a throw-away
 * cluster as the tests start it, helpers/pg-cluster.ts; or SCRUB_PG_URL; skipped with the reason when
 * there is no PostgreSQL; SCRUB_PG=off skips it; SCRUB_REGION=NL normalises the rows for a phone region). Reported per engine: rows/s end to end (upload on disk →
 * both files written; the CPU time of all the process's threads beside it, a figure a busy machine
 * inflates less than the wall time), the peak RSS of the server's process and the job's together, and the longest
 * event-loop delay; the job's process starts, as in the app, from compiled JavaScript (the server compiled as the
 * tests do it, test/helpers/compiled-server.ts, unless CATI_WORKER_BUILD names a build);
 * against two bare baselines measured in the same run: a bare scrub in plain JavaScript (the blacklist read into
 * Sets, the same file's lines looked up there and written to a kept and a removed file; goal ≥ 0.6 of it), and
 * better-sqlite3 loading the same (already normalised) numbers into a temp table and joining it with the
 * blacklist (Equal, then each StartWith length). A second SQLite scrub with annotate=true (Normalized, LineType,
 * Region) gives the annotation's rows/s (goal ≥ 100,000) and, by the RSS the server's process starts it with
 * against the first's, whether the first job gave its memory back; a third, plain, whether memory grows from job to job.
 */
import { appendFileSync, closeSync, copyFileSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BLACKLIST_LIST } from '../../server/cati/scrub-routes.ts';
import { defaultConfig } from '../../server/config.ts';
import type { AppContext } from '../../server/context.ts';
import { PgStore } from '../../server/db/pg-store.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import type { Store } from '../../server/db/store.ts';
import { ScrubService } from '../../server/scrub/scrub-service.ts';
import { childProcesses } from '../helpers/child-processes.ts';
import { compileServer } from '../helpers/compiled-server.ts';
import { createDatabase, PgCluster, postgresBinDir } from '../helpers/pg-cluster.ts';
import { report, watchLoop, type LoopWatch } from './bench-tools.ts';

const ROWS = Number(process.env.SCRUB_ROWS ?? 1_000_000);
const LIST = Number(process.env.SCRUB_LIST ?? 1_000_000);
const PREFIXES = Math.max(1, Math.floor(LIST / 100));
/** SCRUB_REGION=NL: the rows normalised through libphonenumber-js for that region (default none: digits only). */
const REGION = process.env.SCRUB_REGION || null;
const dir = mkdtempSync(join(tmpdir(), 'scrub-bench-'));
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
/** The blacklist's rows: the Equal numbers, then the StartWith prefixes. */
function* blacklistRows(): Generator<[string, string, null, number]> {
  for (let i = 0; i < LIST - PREFIXES; i++) yield [equalNumber(i), 'Equal', null, 0];
  for (let i = 0; i < PREFIXES; i++) yield [prefixOf(i), 'StartWith', null, 0];
}
/** The scrub job processes this one started that are still there (not esbuild's service, which compiled the server). */
const children = () => childProcesses('scrub-job-process');
/** The RSS of this process and of its children (bytes). */
function rssWithChildren(): number {
  let rss = process.memoryUsage().rss;
  for (const pid of children()) {
    try {
      rss += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return rss;
}
/** CPU seconds of the children this process has waited for (/proc/self/stat cutime + cstime, in 1/100 s). */
function childrenCpu(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // from field 3 (the name may hold spaces)
  return (Number(fields[13]) + Number(fields[14])) / 100;
}
/** Resolves once the job's process has exited (and been waited for), at most after 5 s. */
async function childrenGone(): Promise<void> {
  for (const until = Date.now() + 5000; children().length > 0 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 10));
}

const stage = (from: number, to: number | undefined) => (to === undefined ? '-' : `${((to - from) / 1000).toFixed(2)} s`);
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

interface Run {
  rowsPerSecond: number;
  peakMb: number;
  /** The process's RSS when the job started. */
  startMb: number;
  loop: LoopWatch;
}

/** Scrubs the call list against the blacklist of `store` and measures it. */
async function scrubOn(store: Store, label: string, list: string, options: { annotate?: boolean } = {}): Promise<Run> {
  const file = join(dir, `upload-${label}.csv`); // the job removes its upload
  copyFileSync(list, file);
  const ctx = { store, config: defaultConfig({ dataDir: dir }) } as unknown as AppContext;
  const service = new ScrubService(ctx);
  const principal = { keyId: null, name: 'bench', permissions: new Set(['company_administrate'] as const), projects: null };
  await childrenGone();
  const startMb = process.memoryUsage().rss / 1024 / 1024;
  let peak = rssWithChildren();
  let ownPeak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssWithChildren());
    ownPeak = Math.max(ownPeak, process.memoryUsage().rss);
  }, 25);
  const state: { processed?: number } = {};
  const cpu = process.cpuUsage();
  const childCpu = childrenCpu();
  const started = performance.now();
  const watch = watchLoop(() => ` (processed ${state.processed ?? 'not accepted'})`);
  const job = await service.start('phone', principal, { keyId: null, name: 'bench' }, 'list.csv', async () => 'text', { filePath: file, region: REGION, list: BLACKLIST_LIST, ...options });
  const accepted = performance.now();
  let firstRows: number | undefined;
  let allRows: number | undefined;
  const deadline = Date.now() + 600_000;
  while (job.state === 'running' && Date.now() < deadline) {
    state.processed = job.processed;
    if (job.processed > 0) firstRows ??= performance.now();
    if (job.processed >= ROWS) allRows ??= performance.now();
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  const loop = watch.stop();
  clearInterval(sampler);
  await childrenGone();
  const used = process.cpuUsage(cpu);
  const jobCpu = childrenCpu() - childCpu;
  if (loop.stalls.length) console.log(`  ${label}: event-loop stalls over 60 ms: ${loop.stalls.join('; ')}`);
  if (job.state !== 'done') throw new Error(`${label}: scrub ended ${job.state}: ${job.error}`);
  console.log(`  ${label}: ${ROWS.toLocaleString('en-US')} rows against ${LIST.toLocaleString('en-US')} entries (${PREFIXES.toLocaleString('en-US')} StartWith): kept ${job.kept}, removed ${job.removed}, invalid ${job.invalid} in ${seconds.toFixed(2)} s (accepted — worker started, rows counted — after ${stage(started, accepted)}, first rows matched — list loaded — after ${stage(started, firstRows)}, every row matched after ${stage(started, allRows)}; CPU of all threads: ${((used.user + used.system) / 1e6).toFixed(2)} s in the server's process, ${jobCpu.toFixed(2)} s in the job's; RSS: the server's process ${startMb.toFixed(0)} MB at the start, ${(ownPeak / 1024 / 1024).toFixed(0)} MB at most, both processes ${(peak / 1024 / 1024).toFixed(0)} MB at most); load average ${load()}`);
  await service.remove(job);
  return { rowsPerSecond: ROWS / seconds, peakMb: peak / 1024 / 1024, startMb, loop };
}

function reportRun(label: string, run: Run, bare: number): void {
  report(`Scrub throughput (end to end, ${label}; against the bare JavaScript scrub)`, run.rowsPerSecond, 'rows/s', bare, '≥ 0.6 of bare', run.rowsPerSecond >= 0.6 * bare);
  report(`Scrub peak RSS (${label}, the server's process and the job's)`, run.peakMb, 'MB', null, '< 400 MB', run.peakMb < 400);
  const { wallMs, cpuMs } = run.loop;
  if (cpuMs === null) report(`Scrub longest event-loop delay (${label})`, wallMs, 'ms', null, '≤ 50 ms', wallMs <= 50);
  else {
    // docs/limits.md#event-loop limits synchronous work; the wall-clock delay also counts time the OS gave other threads (load above).
    report(`Scrub longest synchronous work on the event loop (${label}, CPU the thread used within one delay)`, cpuMs, 'ms', null, '≤ 50 ms', cpuMs <= 50);
    report(`  its longest event-loop delay by the clock (other threads and processes included)`, wallMs, 'ms', null, 'reported', null);
  }
}

/**
 * The bare JavaScript scrub: the blacklist read into two Sets (Equal numbers, StartWith prefixes), the file read
 * whole and each line's number (its last cell) looked up by itself and by each prefix length, the lines written to
 * a kept and a removed file. No quoting, no encodings, no limits: the floor under what the job does.
 */
function bareSetScrub(store: SqliteStore, file: string): { rowsPerSecond: number; removed: number } {
  const t0 = performance.now();
  const db = store.db;
  const equal = new Set(db.prepare("SELECT telephone_number FROM blacklist WHERE type = 'Equal'").pluck().all() as string[]);
  const prefixes = new Set(db.prepare("SELECT telephone_number FROM blacklist WHERE type = 'StartWith'").pluck().all() as string[]);
  const lengths = [...new Set([...prefixes].map((p) => p.length))].sort((a, b) => a - b);
  const text = readFileSync(file, 'utf8');
  const kept = openSync(join(dir, 'bare-kept.csv'), 'w');
  const removedFile = openSync(join(dir, 'bare-removed.csv'), 'w');
  let at = text.indexOf('\n') + 1;
  const header = text.slice(0, at);
  let keptText = header;
  let removedText = header;
  let removed = 0;
  while (at < text.length) {
    const end = text.indexOf('\n', at);
    const line = text.slice(at, end < 0 ? text.length : end);
    at = end < 0 ? text.length : end + 1;
    const phone = line.slice(line.lastIndexOf(',') + 1);
    const hit = /^\d+$/.test(phone) && (equal.has(phone) || lengths.some((l) => prefixes.has(phone.slice(0, l))));
    if (hit) {
      removed++;
      removedText += `${line}\n`;
    } else keptText += `${line}\n`;
    if (keptText.length > 1 << 20) {
      writeSync(kept, keptText);
      keptText = '';
    }
    if (removedText.length > 1 << 20) {
      writeSync(removedFile, removedText);
      removedText = '';
    }
  }
  writeSync(kept, keptText);
  writeSync(removedFile, removedText);
  closeSync(kept);
  closeSync(removedFile);
  return { rowsPerSecond: ROWS / ((performance.now() - t0) / 1000), removed };
}

/** The bare baseline: the same normalised numbers into a temp table, joined with the blacklist by bare better-sqlite3. */
function bareJoin(store: SqliteStore): { rowsPerSecond: number; removed: number } {
  const db = store.db;
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
  return { rowsPerSecond: ROWS / ((performance.now() - t0) / 1000), removed };
}

/** A PostgreSQL store with the same blacklist, or why there is none. */
async function postgresStore(): Promise<{ store: PgStore; done: () => Promise<void> } | string> {
  if (process.env.SCRUB_PG === 'off') return 'SCRUB_PG=off';
  let cluster: PgCluster | undefined;
  let url = process.env.SCRUB_PG_URL;
  if (!url) {
    const bin = postgresBinDir();
    if (!bin) return 'PostgreSQL binaries not found (apt-get install postgresql, or set SCRUB_PG_URL)';
    cluster = await PgCluster.create(bin);
    url = cluster.url();
  }
  const store = await PgStore.open(await createDatabase(url));
  await store.copyRows('blacklist', ['telephone_number', 'type', 'comment', 'created'], blacklistRows());
  // A list loaded long ago, as in use: vacuumed and analysed, so autovacuum does not compete with the scrub.
  await store.run('VACUUM ANALYZE blacklist');
  return {
    store,
    done: async () => {
      await store.close();
      cluster?.remove();
    },
  };
}

const sqlite = SqliteStore.open(join(dir, 'cati.sqlite'));
// The job's process from compiled JavaScript, as the app runs it (under tsx each start would transpile it anew).
const build = process.env.CATI_WORKER_BUILD ? undefined : await compileServer(fileURLToPath(new URL('../../', import.meta.url)));
if (build) process.env.CATI_WORKER_BUILD = build;
try {
  const insert = sqlite.db.prepare('INSERT INTO blacklist (telephone_number, type, comment, created) VALUES (?, ?, ?, ?)');
  sqlite.db.transaction(() => {
    for (const row of blacklistRows()) insert.run(...row);
  })();
  const file = join(dir, 'list.csv');
  writeFileSync(file, 'Id,Name,Phone\n');
  for (let from = 0; from < ROWS; from += 10_000) {
    let chunk = '';
    for (let i = from; i < Math.min(ROWS, from + 10_000); i++) chunk += `${i},Person ${i},${phoneOf(i) || 'n/a'}\n`;
    appendFileSync(file, chunk);
  }

  const onSqlite = await scrubOn(sqlite, 'SQLite', file);
  const annotated = await scrubOn(sqlite, 'SQLite-annotate', file, { annotate: true });
  const third = await scrubOn(sqlite, 'SQLite-again', file);
  // PostgreSQL before the bare baselines: their Sets and the file they read whole would sit in this process's RSS,
  // which the job's peak counts.
  const pg = await postgresStore();
  let onPg: Run | undefined;
  if (typeof pg === 'string') console.log(`  PostgreSQL: SKIPPED (${pg})`);
  else {
    try {
      onPg = await scrubOn(pg.store, 'PostgreSQL', file);
    } finally {
      await pg.done();
    }
  }
  const bareSet = bareSetScrub(sqlite, file);
  console.log(`  bare JavaScript scrub: removed ${bareSet.removed}; load average ${load()}`);
  const bare = bareJoin(sqlite);
  console.log(`  bare better-sqlite3 join: removed ${bare.removed}; load average ${load()}`);
  reportRun('SQLite', onSqlite, bareSet.rowsPerSecond);
  report('  against the bare better-sqlite3 join', onSqlite.rowsPerSecond, 'rows/s', bare.rowsPerSecond, 'reported', null);
  report('Scrub throughput with annotate=true (SQLite)', annotated.rowsPerSecond, 'rows/s', null, '≥ 100,000 rows/s', annotated.rowsPerSecond >= 100_000);
  const grew = annotated.startMb - onSqlite.startMb;
  // The server's process: the job's own is gone by then, with all its memory (docs/performance.md#memory-after-a-job).
  report("RSS the server's process starts a second scrub with, above the first (memory given back)", grew, 'MB', null, '≤ 32 MB', grew <= 32);
  const again = third.startMb - annotated.startMb;
  report('  and a third above the second (growth from job to job)', again, 'MB', null, '≤ 8 MB', again <= 8);
  if (onPg) reportRun('PostgreSQL', onPg, bareSet.rowsPerSecond);
} finally {
  await sqlite.close();
  rmSync(dir, { recursive: true, force: true });
  if (build) rmSync(build, { recursive: true, force: true });
}
