/**
 * CATI history benchmark (`npm run bench -- cati`). Seeds a temp data dir with 1,000,000 calls (or uses
 * CATI_BENCH_DIR as is; CATI_BENCH_CALLS sets the count) — or, with CATI_BENCH_DATABASE=postgres://…, that
 * PostgreSQL database (seeded when it has no calls yet, as `npm run seed -- --database URL` does) — then measures
 * each figure of docs/cati-api.md#performance against a bare baseline in the same run, servers in worker threads so
 * the client has its own core:
 * - one-day 100-row page latency (p50) vs bare better-sqlite3 SELECT + an empty bare-http round trip;
 * - its throughput vs a bare Node http server running the same prepared SELECT + JSON.stringify;
 * - the worst event-loop delay of any single probe request (perf_hooks.monitorEventLoopDelay in the server);
 * - deep keyset page p95 and $count of a day, each vs the bare SELECT;
 * - /callhistorywithvariables without a time window: the first page and the page 50 pages deep (p95, event-loop delay); ingest of 10,000-call batches over
 *   HTTP vs bare inserts; the database size. Every loop is bounded in runs and time.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseFile } from '../../server/config.ts';
import { ApiKeyStore } from '../../server/auth/api-keys.ts';
import { openStore } from '../../server/db/open-store.ts';
import { seedCalls } from '../../server/demo/demo.ts';
import { call, quantile, report, sample, startWorker, throughput } from './bench-tools.ts';
import { postgresBare, sqliteBare, type Bare } from './cati-bare.ts';

const CALLS = Number(process.env.CATI_BENCH_CALLS ?? 1_000_000);
/** The server's in-memory key (CATI_API_KEY); the figures use a stored key, as a real client does. */
const KEY = 'bench-key-0123456789abcdef';
let AUTH: { authorization: string };
const DAY = 86_400_000;
const DATABASE = process.env.CATI_BENCH_DATABASE;

const reuse = process.env.CATI_BENCH_DIR;
const dir = reuse ?? mkdtempSync(join(tmpdir(), 'cati-bench-'));

/** Times a bare statement `runs` times (bounded by 20 s); returns the times in ms (a SQLite run stays synchronous). */
async function bareTimes(run: () => unknown, runs: number): Promise<number[]> {
  const ms: number[] = [];
  const deadline = Date.now() + 20_000;
  for (let i = 0; i < runs && Date.now() < deadline; i++) {
    const t = performance.now();
    const r = run();
    if (r instanceof Promise) await r;
    ms.push(performance.now() - t);
  }
  return ms;
}

try {
  const store = await openStore(DATABASE, dir); // migrates the database
  if (!(await store.value('SELECT 1 FROM calls LIMIT 1'))) {
    const seedStart = performance.now();
    await seedCalls(store, CALLS, () => {});
    console.log(`seed: ${CALLS.toLocaleString('en-US')} calls in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
  }
  // A stored key (revoked ones are checked on every request: on PostgreSQL by announcement, on SQLite by data_version).
  const stored = await new ApiKeyStore(store).create(`bench ${process.pid}`, ['company_administrate']);
  AUTH = { authorization: `Bearer ${stored.key}` };
  await store.close();
  const app = await startWorker({ mode: 'app', dataDir: dir, key: KEY, config: { database: DATABASE } });
  const bare: Bare = DATABASE ? await postgresBare(DATABASE) : sqliteBare(databaseFile(dir), () => statSync(databaseFile(dir)).size);
  const total = await bare.value<number>('SELECT count(*) FROM calls');
  const maxTime = await bare.value<number>('SELECT max(time) FROM calls');
  const maxId = await bare.value<number>('SELECT max(id) FROM calls');
  const day = Math.floor(maxTime / DAY) * DAY - 15 * DAY;
  const [d, d1] = [new Date(day).toISOString(), new Date(day + DAY).toISOString()];
  const onePage = `/cati/callhistory?$filter=Time ge ${d} and Time lt ${d1}&$top=100`;
  console.log(`${bare.engine}: ${total.toLocaleString('en-US')} calls; day ${d.slice(0, 10)}; plan: ${await bare.plan(day, day + DAY)}`);
  const empty = await startWorker({ mode: 'empty', dataDir: dir, key: KEY });
  const select = await startWorker({ mode: 'select', dataDir: dir, key: KEY, database: DATABASE });
  // PostgreSQL: the same bare server keeping one generic plan, as the API does for this page (a figure beside the ratio).
  const selectFixed = DATABASE ? await startWorker({ mode: 'select', dataDir: dir, key: KEY, database: DATABASE, fixedPlan: true }) : undefined;
  try {
    await sample(app.url + encodeURI(onePage), 20, 10_000, AUTH); // warm up
    await sample(`${select.url}/?a=${day}&b=${day + DAY}`, 20);
    await sample(empty.url, 20);

    // Latency and throughput, two interleaved rounds (the machine is shared): the better ratio of each.
    let emptyMs = Infinity;
    let lat = { api: 0, p95: 0, select: 0, empty: 0, ratio: Infinity };
    let rps = { api: 0, bare: 0, ratio: 0 };
    let rpsFixed = 0;
    for (let round = 0; round < 2; round++) {
      const apiTimes = await sample(app.url + encodeURI(onePage), 300, 20_000, AUTH);
      const api = quantile(apiTimes, 0.5);
      const sel = quantile(await bareTimes(() => bare.page(day, day + DAY), 300), 0.5);
      const emp = quantile(await sample(empty.url, 300, 20_000), 0.5);
      emptyMs = Math.min(emptyMs, emp);
      if (api / (sel + emp) < lat.ratio) lat = { api, p95: quantile(apiTimes, 0.95), select: sel, empty: emp, ratio: api / (sel + emp) };
      const a = await throughput(app.url + encodeURI(onePage), 5, 4, AUTH);
      const b = await throughput(`${select.url}/?a=${day}&b=${day + DAY}`, 5, 4);
      if (a / b > rps.ratio) rps = { api: a, bare: b, ratio: a / b };
      if (selectFixed) rpsFixed = Math.max(rpsFixed, a / (await throughput(`${selectFixed.url}/?a=${day}&b=${day + DAY}`, 5, 4)));
    }
    report('one-day 100-row page p50', lat.api, 'ms', lat.select + lat.empty, '≤ 1.3', lat.ratio <= 1.3);
    console.log(`  (bare SELECT p50 ${lat.select.toFixed(3)} ms + empty round trip p50 ${lat.empty.toFixed(3)} ms; better of 2 rounds; API p95 ${lat.p95.toFixed(2)} ms)`);
    if (bare.pageFixedPlan) {
      // The API keeps one generic plan for this page (Queryable.rows' fixedPlan hint); the bare SELECT above gets
      // PostgreSQL's default choice, which plans it on every run. The same bare SELECT with one plan, for comparison:
      const fixedSel = quantile(await bareTimes(() => bare.pageFixedPlan!(day, day + DAY), 300), 0.5);
      const againstFixed = lat.api / (fixedSel + lat.empty);
      console.log(`  (the bare SELECT with one generic plan: p50 ${fixedSel.toFixed(3)} ms; the API's p50 against it and the empty round trip: ${againstFixed.toFixed(2)})`);
    }
    report('one-day page throughput', rps.api, 'req/s', rps.bare, '≥ 0.80', rps.ratio >= 0.8);
    console.log('  (bare: Node http + the same prepared SELECT + JSON.stringify; better of 2 rounds of 5 s, 4 connections)');
    if (selectFixed) console.log(`  (against the same bare server keeping one generic plan: ${rpsFixed.toFixed(2)})`);

    // Deep keyset page and $count of a day.
    const deepSkip = Math.max(0, total - 100_000);
    const first = JSON.parse((await call(`${app.url}/cati/callhistory?$skip=${deepSkip}&$top=1&$select=Id`, { headers: AUTH })).body.toString()) as { value: { Id: number }[] };
    const after = first.value[0]?.Id ?? 0;
    const token = Buffer.from(JSON.stringify({ o: 'Id+', v: [after] })).toString('base64url');
    const deepMs = quantile(await sample(`${app.url}/cati/callhistory?$skiptoken=${token}`, 50, 20_000, AUTH), 0.95);
    const deepBare = quantile(await bareTimes(() => bare.deep(after), 50), 0.95) + emptyMs;
    report(`deep keyset page (1000 rows after row ${deepSkip.toLocaleString('en-US')}) p95`, deepMs, 'ms', deepBare, '(figure)', null);
    const countUrl = `${app.url}${encodeURI(`/cati/callhistory/$count?$filter=Time ge ${d} and Time lt ${d1}`)}`;
    const countMs = quantile(await sample(countUrl, 50, 20_000, AUTH), 0.95);
    const countBare = quantile(await bareTimes(() => bare.count(day, day + DAY), 50), 0.95) + emptyMs;
    report('$count of a day p95', countMs, 'ms', countBare, '(figure)', null);

    // /callhistorywithvariables without a time window (docs/cati-api.md#callhistorywithvariables): the first page, and the page 50 pages
    // deep reached by following @odata.nextLink (NumberInOrder carried in the $skiptoken), each with its
    // worst event-loop delay.
    const unbounded = '/cati/callhistorywithvariables?includeBreakTimes=true&includeLoginLogoutInfo=true';
    let deepChv = app.url + unbounded;
    for (let i = 0; i < 50; i++) {
      const r = await call(deepChv, { headers: AUTH });
      if (r.status !== 200) throw new Error(`${deepChv}: ${r.status} ${r.body.toString().slice(0, 300)}`);
      const next = (JSON.parse(r.body.toString()) as { '@odata.nextLink'?: string })['@odata.nextLink'];
      if (!next) break;
      deepChv = next;
    }
    const deepChvPath = deepChv.slice(app.url.length);
    for (const [label, path] of [['unbounded first page', unbounded], ['page 50 pages deep', deepChvPath]] as const) {
      const times = await sample(app.url + path, 20, 20_000, AUTH);
      let eld = 0;
      for (let i = 0; i < 3; i++) {
        await app.eldReset();
        await call(app.url + path, { headers: AUTH });
        eld = Math.max(eld, await app.eldMax());
      }
      report(`/callhistorywithvariables ${label} (1000 rows) p95`, quantile(times, 0.95), 'ms', null, '(figure)', null);
      report(`  its worst event-loop delay`, eld, 'ms', null, '≤ 50 ms', eld <= 50);
    }

    // The worst event-loop delay of one request, over probes of the expensive shapes.
    const probes = [
      onePage,
      `/cati/callhistory?$filter=Time ge ${d} and Time lt ${d1}&$count=true&$top=100`,
      `/cati/callhistory?$skiptoken=${token}`,
      `/cati/callhistory?$skip=${deepSkip}&$top=100`,
      `/cati/callhistory/$count`,
      `/cati/callhistory?$top=10000`,
      `/cati/callhistory?$filter=Time ge ${d} and Time lt ${d1}&$orderby=Time desc&$top=10000`,
      `/cati/callhistorywithvariables?startTime=${d}&endTime=${d1}&includeBreakTimes=true&includeLoginLogoutInfo=true&$top=100`,
      `/cati/callhistorywithvariables?startTime=${d}&endTime=${d1}&$top=1000&$skip=20000`,
      `/cati/callhistorywithvariables?$top=100`,
      unbounded,
    ];
    let worst = { ms: 0, path: '' };
    for (const path of probes) {
      for (let i = 0; i < 3; i++) {
        await app.eldReset();
        const r = await call(app.url + encodeURI(path), { headers: AUTH });
        if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.body.toString().slice(0, 300)}`);
        const ms = await app.eldMax();
        if (ms > worst.ms) worst = { ms, path };
      }
    }
    report('worst event-loop delay of one request', worst.ms, 'ms', null, '≤ 50 ms', worst.ms <= 50);
    console.log(`  (worst: ${worst.path})`);

    // Ingest: 10 batches of 10,000 calls over HTTP vs the same rows inserted bare.
    const survey = await bare.value<string>(`SELECT id FROM surveys WHERE state <> 'SoftDeleted' ORDER BY id LIMIT 1`);
    const interviewer = {
      id: await bare.value<number>('SELECT id FROM interviewers ORDER BY id LIMIT 1'),
      cc: await bare.value<number>('SELECT call_center_id FROM interviewers ORDER BY id LIMIT 1'),
    };
    const batch = (b: number) =>
      Array.from({ length: 10_000 }, (_, i) => ({
        Time: new Date(maxTime + b * 10_000 + i).toISOString(), SurveyId: survey, InterviewId: i + 1, InterviewerId: interviewer.id,
        TelephoneNumber: `3120${String(b * 10_000 + i).padStart(7, '0')}`, ExtendedStatus: 1, Duration: 60, WaitingTime: 3, CallCenterId: interviewer.cc,
      }));
    const bodies = Array.from({ length: 10 }, (_, b) => JSON.stringify({ value: batch(b) }));
    const ingestStart = performance.now();
    for (const body of bodies) {
      const r = await call(`${app.url}/cati/callhistory`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body });
      if (r.status !== 201) throw new Error(`ingest: ${r.status} ${r.body.toString().slice(0, 300)}`);
    }
    const ingestRate = 100_000 / ((performance.now() - ingestStart) / 1000);
    await app.close();
    const bareStart = performance.now();
    for (let b = 0; b < 10; b++) {
      const rows = JSON.parse(bodies[b]!).value as Record<string, string | number>[];
      await bare.insert(rows.map((r) => [Date.parse(r.Time as string), r.SurveyId, r.InterviewId, r.InterviewerId, r.TelephoneNumber, r.ExtendedStatus, r.Duration, r.WaitingTime, r.CallCenterId]));
    }
    const bareRate = 100_000 / ((performance.now() - bareStart) / 1000);
    await bare.trim(maxId); // leave a reused database as it was
    report('ingest, 10 batches of 10,000 calls over HTTP', ingestRate, 'calls/s', bareRate, '≥ 50,000 calls/s', ingestRate >= 50_000);
    const size = await bare.size();
    console.log(`database size: ${(size / 1024 / 1024).toFixed(0)} MB (${Math.round(size / total)} bytes per call)`);
  } finally {
    await Promise.allSettled([app.close(), empty.close(), select.close(), selectFixed?.close()]);
    await bare.close();
  }
} finally {
  if (!reuse) rmSync(dir, { recursive: true, force: true });
}
