/**
 * Reports benchmark (`npm run bench -- report`): seeds a temp data dir with 1,000,000 calls (the seed of
 * `npm run seed`; CATI_BENCH_CALLS overrides), starts a real server on 127.0.0.1:0 and measures, each
 * against a bare baseline in the same run:
 * - `$apply` calls per hour for one day per survey, and a one-week per-interviewer aggregation
 *   (baseline: the same GROUP BY on bare better-sqlite3);
 * - the export's row-limit check (a HEAD export: counts, sends no body; baseline: bare `SELECT count(*)`);
 * - the CSV export of every call: rows/s, server RSS growth and the longest event-loop stall
 *   (baseline: bare SELECT + CSV lines written to a file);
 * - the XLSX export of every call: time, RSS growth (baseline: the bare SELECT + CSV file above).
 * Server and client share this process; the client drops each chunk as it arrives. Bounded in runs and time.
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { once } from 'node:events';
import http from 'node:http';
import { databaseFile, defaultConfig } from '../../server/config.ts';
import { openDatabase } from '../../server/db/open.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { seedCalls } from '../../server/demo/demo.ts';
import { csvCell } from '../../server/lib/csv-cell.ts';
import { startServer } from '../../server/server.ts';

const CALLS = Number(process.env.CATI_BENCH_CALLS ?? 1_000_000);
const RUNS = 20;
const KEY = 'bench-key-0123456789abcdef';
const DAY = 86_400_000;
const MB = 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'report-bench-'));
v8.setFlagsFromString('--expose-gc');
/** A full GC, so "retained" figures count live memory only. */
const gc = vm.runInNewContext('gc') as () => void;
/** Live memory: V8 heap plus Buffers, after a full GC. */
const live = () => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const q = encodeURIComponent;

/** Runs `fn` up to RUNS times (30 s at most) and answers the median in ms. */
async function timed(fn: () => unknown): Promise<number> {
  const ms: number[] = [];
  const deadline = Date.now() + 30_000;
  for (let i = 0; i < RUNS && Date.now() < deadline; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

/**
 * Samples RSS every 20 ms, live memory after a full GC every 5 s (what the export really holds, garbage
 * not counted) and the event loop's delay while `fn` runs.
 */
async function watched<T>(fn: () => Promise<T>): Promise<{ result: T; ms: number; rssGrowthMb: number; liveGrowthMb: number; maxStallMs: number; p99StallMs: number }> {
  const liveBefore = live();
  let livePeak = liveBefore;
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const liveSampler = setInterval(() => (livePeak = Math.max(livePeak, live())), 5000);
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const t0 = performance.now();
  const result = await fn();
  const ms = performance.now() - t0;
  loop.disable();
  clearInterval(sampler);
  clearInterval(liveSampler);
  return { result, ms, rssGrowthMb: (peak - before) / MB, liveGrowthMb: (livePeak - liveBefore) / MB, maxStallMs: loop.max / 1e6, p99StallMs: loop.percentile(99) / 1e6 };
}

try {
  const db = SqliteStore.open(databaseFile(dir));
  await seedCalls(db, CALLS, () => {});
  await db.close();
  console.log(`seed: ${CALLS} calls (npm run seed's generator; not 20,000,000: no time on a shared machine)`);
  const bare = openDatabase(databaseFile(dir), { readonly: true, migrate: false });
  const server = await startServer(defaultConfig({ port: 0, host: '127.0.0.1', dataDir: dir, apiKey: KEY }));
  const fetchOk = async (path: string) => {
    const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${KEY}` } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  /** Downloads an export through node:http (lighter than fetch's web streams), dropping the bytes; answers the byte count. */
  const drain = (path: string) =>
    new Promise<number>((resolve, reject) => {
      http.get(server.url + path, { headers: { authorization: `Bearer ${KEY}` } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode}`));
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve(bytes));
        res.on('error', reject);
      }).on('error', reject);
    });
  try {
    const day = Math.floor(Date.now() / DAY) * DAY - 15 * DAY;
    const iso = (ms: number) => new Date(ms).toISOString();
    await fetchOk('/cati/callhistory?$top=1');

    const floor = await timed(async () => (await fetchOk('/cati/callhistory?$top=0')).json());
    console.log(`HTTP floor (GET /cati/callhistory?$top=0 through the same client): ${floor.toFixed(1)} ms median`);
    const perHour = `filter(Time ge ${iso(day)} and Time lt ${iso(day + DAY)})/compute(hour(Time) as Hour)/groupby((SurveyId,Hour),aggregate($count as Calls))`;
    const perHourSql = bare.prepare(`SELECT survey_id, CAST(strftime('%H', time / 1000.0, 'unixepoch') AS INTEGER) AS h, count(*) FROM calls
      WHERE time >= ? AND time < ? GROUP BY survey_id, h ORDER BY survey_id, h`);
    const hourRows = (await (await fetchOk(`/cati/callhistory?$apply=${q(perHour)}`)).json()).value.length;
    const apiHour = await timed(async () => (await fetchOk(`/cati/callhistory?$apply=${q(perHour)}`)).json());
    const bareHour = await timed(() => perHourSql.all(day, day + DAY));
    console.log(`$apply calls per hour, one day per survey (${hourRows} rows): ${apiHour.toFixed(1)} ms median; bare GROUP BY ${bareHour.toFixed(1)} ms; ratio ${(apiHour / bareHour).toFixed(2)}`);

    const week = day - 6 * DAY;
    const perInterviewer = `filter(Time ge ${iso(week)} and Time lt ${iso(day + DAY)})/groupby((InterviewerId),aggregate($count as Calls,Duration with sum as Talk,WaitingTime with sum as Waiting,Duration with average as AvgTalk))`;
    const perInterviewerSql = bare.prepare(`SELECT interviewer_id, count(*), sum(duration), sum(waiting_time), avg(duration) FROM calls
      WHERE time >= ? AND time < ? GROUP BY interviewer_id ORDER BY interviewer_id`);
    const apiWeek = await timed(async () => (await fetchOk(`/cati/callhistory?$apply=${q(perInterviewer)}`)).json());
    const bareWeek = await timed(() => perInterviewerSql.all(week, day + DAY));
    console.log(`$apply one week per interviewer: ${apiWeek.toFixed(1)} ms median; bare GROUP BY ${bareWeek.toFixed(1)} ms; ratio ${(apiWeek / bareWeek).toFixed(2)}`);

    const head = async () => {
      const res = await fetch(`${server.url}/cati/callhistory?$format=csv`, { method: 'HEAD', headers: { authorization: `Bearer ${KEY}` } });
      if (res.status !== 200) throw new Error(`HEAD export: ${res.status}`);
    };
    const countSql = bare.prepare('SELECT count(*) FROM calls');
    const apiCount = await timed(head);
    const bareCount = await timed(() => countSql.get());
    console.log(`export row-limit check (HEAD $format=csv, counts ${CALLS} calls): ${apiCount.toFixed(1)} ms median; bare count(*) ${bareCount.toFixed(1)} ms; HTTP floor ${floor.toFixed(1)} ms`);

    const file = join(dir, 'bare.csv');
    const bareCsv = await watched(async () => {
      const out = createWriteStream(file);
      out.write('\uFEFFId,Time,SurveyId,InterviewId,InterviewerId,TelephoneNumber,ExtendedStatus,Duration,WaitingTime,CallCenterId\r\n');
      let chunk = '';
      const rows = bare.prepare('SELECT id, time, survey_id, interview_id, interviewer_id, telephone_number, extended_status, duration, waiting_time, call_center_id FROM calls ORDER BY id').raw().iterate();
      for (const r of rows as Iterable<unknown[]>) {
        chunk += `${r[0]},${new Date(r[1] as number).toISOString()},${csvCell(r[2] as string)},${r[3] ?? ''},${r[4] ?? ''},${csvCell(r[5] as string)},${r[6] ?? ''},${r[7] ?? ''},${r[8]},${r[9]}\r\n`;
        if (chunk.length < 65536) continue;
        if (!out.write(chunk)) await once(out, 'drain');
        chunk = '';
      }
      out.end(chunk);
      await once(out, 'finish');
    });
    const bareRate = CALLS / (bareCsv.ms / 1000);
    console.log(
      `bare SELECT + CSV to a file: ${(bareCsv.ms / 1000).toFixed(2)} s, ${Math.round(bareRate)} rows/s, RSS growth ${bareCsv.rssGrowthMb.toFixed(1)} MB, ` +
        `event-loop delay max ${bareCsv.maxStallMs.toFixed(1)} ms, p99 ${bareCsv.p99StallMs.toFixed(1)} ms (machine load: ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores)`,
    );

    const csv = await watched(() => drain('/cati/callhistory?$format=csv'));
    const rate = CALLS / (csv.ms / 1000);
    console.log(
      `CSV export of ${CALLS} calls: ${(csv.ms / 1000).toFixed(2)} s, ${Math.round(rate)} rows/s (${(rate / bareRate).toFixed(2)} × bare), ` +
        `${(csv.result / MB).toFixed(0)} MB, RSS growth ${csv.rssGrowthMb.toFixed(1)} MB (live after GC +${csv.liveGrowthMb.toFixed(1)} MB), event-loop delay max ${csv.maxStallMs.toFixed(1)} ms, p99 ${csv.p99StallMs.toFixed(1)} ms`,
    );

    const xlsx = await watched(() => drain('/cati/callhistory?$format=xlsx'));
    console.log(
      `XLSX export of ${CALLS} calls: ${(xlsx.ms / 1000).toFixed(2)} s, ${Math.round(CALLS / (xlsx.ms / 1000))} rows/s (${(xlsx.ms / bareCsv.ms).toFixed(2)} × the bare CSV time), ${(xlsx.result / MB).toFixed(0)} MB, ` +
        `RSS growth ${xlsx.rssGrowthMb.toFixed(1)} MB (live after GC +${xlsx.liveGrowthMb.toFixed(1)} MB; bare CSV file: RSS +${bareCsv.rssGrowthMb.toFixed(1)} MB), event-loop delay max ${xlsx.maxStallMs.toFixed(1)} ms, p99 ${xlsx.p99StallMs.toFixed(1)} ms`,
    );
  } finally {
    await server.close();
    bare.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
