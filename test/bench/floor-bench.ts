/**
 * Live floor benchmark (`npm run bench -- floor`, docs/cati-api.md#floor). Seeds 1,000,000 calls (CATI_BENCH_CALLS) over the
 * last 30 days (CATI_BENCH_DAYS; 400 with 20,000,000 calls is a 500-seat centre's ~50,000 a day), puts
 * 500 open sessions on the floor through the ingest API, and measures, against a server in its own process:
 * - `/cati/floor` (500 rows) p95, beside a bare Node http server answering the same SELECT in the same process;
 * - ingest → event on a subscribed `/events` stream, p95;
 * - 200 `/events` subscribers while ingesting 200 calls/s for 10 s: events lost (must be 0), server CPU;
 * - the renderer's Floor screen with 500 rows updating live in Chromium: long tasks (PerformanceObserver 'longtask').
 * Every loop is bounded in count and time; everything listens on 127.0.0.1. CATI_BENCH_KEEP=1 keeps the data dir.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createSseParser } from '../../renderer/src/api/sse.ts';
import { databaseFile } from '../../server/config.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { seedCalls } from '../../server/demo/demo.ts';
import { ensureRendererBuilt, launchChromium, RENDERER_DIR } from '../e2e/ui-harness.ts';

const CALLS = Number(process.env.CATI_BENCH_CALLS ?? 1_000_000);
/** Days the seeded calls spread over: 400 puts 20,000,000 at about 50,000 a day, a 500-seat centre's pace. */
const DAYS = Number(process.env.CATI_BENCH_DAYS ?? 30);
const SESSIONS = 500;
const SUBSCRIBERS = 200;
const RATE = 200; // calls per second
const LOAD_SECONDS = 10;
const BATCH = 10; // calls per ingest request in the load test
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return { median: at(0.5), p95: at(0.95), text: `median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms (${s.length} runs)` };
};

interface Child { url: string; bareUrl: string; key: string; supervisors: string[]; dialer: string; uiLink: string }

ensureRendererBuilt();
const dir = mkdtempSync(join(tmpdir(), 'floor-bench-'));
const seedDb = SqliteStore.open(databaseFile(dir));
const seedStart = performance.now();
await seedCalls(seedDb, CALLS, () => {}, DAYS);
console.log(`seed: ${CALLS} calls over ${DAYS} days in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
await seedDb.close();

const proc = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'floor-bench-server.ts'), dir, RENDERER_DIR], { stdio: ['ignore', 'pipe', 'inherit'] });
const cpuMs = () => {
  const f = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in clock ticks of 1/100 s
};

try {
  const c = await new Promise<Child>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', (l) => resolve(JSON.parse(l) as Child));
    proc.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
  });
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(c.url + path, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return text ? (JSON.parse(text) as { value: unknown[] } & Record<string, unknown>) : undefined;
  };

  // 500 working interviewers: the seeded organisation's, then new ones; calls today, open calls and breaks.
  const existing = ((await call('GET', '/cati/interviewers?$select=InterviewerId&$top=10000', c.key))!.value as { InterviewerId: number }[]).map((i) => i.InterviewerId);
  const ids = existing.slice(0, SESSIONS);
  for (let i = ids.length; i < SESSIONS; i++) ids.push((await call('POST', '/cati/interviewerproperties', c.key, { Name: `bench${i}`, CallCenterId: 1 }))!.InterviewerId as number);
  await call('POST', '/cati/surveys', c.dialer, { SurveyId: 'p900', SurveyName: 'Bench', State: 'Open' });
  const now = Date.now();
  const login = now - 3 * 60 * MIN;
  await call('POST', '/cati/interviewersessionhistory', c.dialer, { value: ids.map((id) => ({ InterviewerId: id, CallCenterId: 1, LoginTime: iso(login) })) });
  const today = ids.flatMap((id, n) => Array.from({ length: 20 }, (_, k) => ({ InterviewerId: id, Time: iso(login + (k * 8 + (n % 7)) * MIN), Duration: 200, SurveyId: 'p900', TelephoneNumber: `0201${n}${k}`, ExtendedStatus: 1 + (k % 5) })));
  for (let i = 0; i < today.length; i += 5000) await call('POST', '/cati/callhistory', c.dialer, { value: today.slice(i, i + 5000) });
  const opens = ids.filter((_, n) => n % 5 !== 0).filter((_, n) => n % 2 === 0).map((id, n) => ({ InterviewerId: id, Time: iso(now - (n % 300) * 1000), Duration: null, SurveyId: 'p900', TelephoneNumber: `0301${n}` }));
  await call('POST', '/cati/callhistory', c.dialer, { value: opens });
  const breaks = ids.filter((_, n) => n % 5 === 0).map((id, n) => ({ InterviewerId: id, Time: iso(now - (n % 25) * MIN), Duration: null, BreakTypeId: 1 + (n % 3), BreakTypeName: ['Coffee', 'Lunch', 'Technical'][n % 3] }));
  await call('POST', '/cati/breakhistory', c.dialer, { value: breaks });
  await call('PATCH', '/cati/breaktypes(1)', c.key, { MaxMinutes: 15 });
  const floorRows = (await call('GET', '/cati/floor?$count=true&$top=0', c.key))!['@odata.count'];
  console.log(`floor: ${floorRows} rows (${opens.length} on call, ${breaks.length} on break), ${CALLS + today.length + opens.length} calls in the database`);

  // 1. /cati/floor against the bare SELECT, interleaved.
  const timed = async (url: string) => {
    const t = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${c.key}` } });
    const body = (await res.json()) as { value: unknown[] };
    if (res.status !== 200 || body.value.length !== SESSIONS) throw new Error(`${url}: ${res.status}, ${body.value?.length} rows`);
    return performance.now() - t;
  };
  const api: number[] = [];
  const bare: number[] = [];
  await timed(`${c.url}/cati/floor?$top=10000`);
  await timed(c.bareUrl);
  for (let i = 0, end = Date.now() + 60_000; i < 50 && Date.now() < end; i++) {
    api.push(await timed(`${c.url}/cati/floor?$top=10000`));
    bare.push(await timed(c.bareUrl));
  }
  const a = stats(api);
  const b = stats(bare);
  console.log(`GET /cati/floor (${SESSIONS} rows): ${a.text}`);
  console.log(`bare http, same SELECT:      ${b.text}`);
  console.log(`ratio p95 ${(a.p95 / b.p95).toFixed(2)}, median ${(a.median / b.median).toFixed(2)} (goal: p95 ≤ 20 ms at 20,000,000 calls; measured at ${CALLS} calls over ${DAYS} days)`);

  // A subscriber: counts the `call` events whose TelephoneNumber starts with `prefix`, noting when each arrived.
  const subscribe = async (key: string, prefix: string) => {
    const controller = new AbortController();
    const res = await fetch(`${c.url}/events`, { headers: { authorization: `Bearer ${key}` }, signal: controller.signal });
    if (res.status !== 200) throw new Error(`/events: ${res.status}`);
    const seen = new Map<string, number>();
    const parser = createSseParser();
    void (async () => {
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          for (const m of parser.push(value)) {
            if (m.event !== 'call' || !m.data.includes(prefix)) continue;
            const d = JSON.parse(m.data) as { TelephoneNumber: string };
            if (d.TelephoneNumber.startsWith(prefix)) seen.set(d.TelephoneNumber, performance.now());
          }
        }
      } catch {
        // aborted
      }
    })();
    return { seen, close: () => controller.abort() };
  };
  // A cheap subscriber for the load test (200 of them share this process): counts the marker in the raw text.
  const counter = async (key: string, marker: string) => {
    const controller = new AbortController();
    const res = await fetch(`${c.url}/events`, { headers: { authorization: `Bearer ${key}` }, signal: controller.signal });
    if (res.status !== 200) throw new Error(`/events: ${res.status}`);
    const state = { count: 0, close: () => controller.abort() };
    void (async () => {
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let tail = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          const text = tail + value;
          for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + marker.length)) state.count++;
          tail = text.slice(Math.max(0, text.length - marker.length + 1));
        }
      } catch {
        // aborted
      }
    })();
    return state;
  };
  const until = async (cond: () => boolean, ms: number) => {
    for (const end = Date.now() + ms; !cond() && Date.now() < end; ) await sleep(5);
    return cond();
  };

  // 2. Ingest → event, one at a time.
  const one = await subscribe(c.supervisors[0]!, '0401');
  const latency: number[] = [];
  for (let i = 0; i < 100; i++) {
    const number = `0401${String(i).padStart(4, '0')}`;
    const t = performance.now();
    await call('POST', '/cati/callhistory', c.dialer, { InterviewerId: ids[i % SESSIONS], Time: iso(Date.now() - 1000), Duration: 30, SurveyId: 'p900', TelephoneNumber: number });
    if (!(await until(() => one.seen.has(number), 5000))) throw new Error(`no event for call ${number} within 5 s`);
    latency.push(one.seen.get(number)! - t);
  }
  one.close();
  console.log(`ingest POST → call event on a subscribed stream: ${stats(latency).text}`);

  // 3. 200 subscribers while ingesting 200 calls/s for 10 s.
  const subs = await Promise.all(Array.from({ length: SUBSCRIBERS }, (_, i) => counter(c.supervisors[i % c.supervisors.length]!, '"TelephoneNumber":"0501')));
  const total = RATE * LOAD_SECONDS;
  const cpu0 = cpuMs();
  const wall0 = performance.now();
  // A few paced workers posting batches of BATCH calls (batch n is due at n * BATCH / RATE seconds).
  let next = 0;
  let sent = 0;
  const deadline = wall0 + LOAD_SECONDS * 3000; // bounded even if the server falls behind
  const worker = async () => {
    for (let n = next++; n * BATCH < total && performance.now() < deadline; n = next++) {
      const wait = wall0 + ((n * BATCH) / RATE) * 1000 - performance.now();
      if (wait > 0) await sleep(wait);
      const value = Array.from({ length: BATCH }, (_, k) => ({
        InterviewerId: ids[(n * BATCH + k) % SESSIONS], Time: iso(Date.now() - 1000), Duration: 30, SurveyId: 'p900', TelephoneNumber: `0501${String(n * BATCH + k).padStart(6, '0')}`,
      }));
      await call('POST', '/cati/callhistory', c.dialer, { value });
      sent += BATCH;
    }
  };
  const own0 = process.cpuUsage();
  await Promise.all(Array.from({ length: 10 }, worker));
  const ingestSeconds = (performance.now() - wall0) / 1000;
  await until(() => subs.every((s) => s.count >= sent), 30_000);
  const cpu = cpuMs() - cpu0;
  const own = process.cpuUsage(own0);
  const wall = performance.now() - wall0;
  const lost = subs.reduce((n, s) => n + Math.max(0, sent - s.count), 0);
  subs.forEach((s) => s.close());
  console.log(
    `${SUBSCRIBERS} subscribers, ${sent} calls (batches of ${BATCH}) in ${ingestSeconds.toFixed(1)} s (${(sent / ingestSeconds).toFixed(0)}/s): events lost ${lost} of ${sent * SUBSCRIBERS}; ` +
      `server CPU ${(cpu / 1000).toFixed(1)} s over ${(wall / 1000).toFixed(1)} s wall = ${((cpu / wall) * 100).toFixed(0)} % of one core ` +
      `(the ${SUBSCRIBERS} readers and the dialer in the bench process: ${((own.user + own.system) / 1e6).toFixed(1)} s CPU)`,
  );
  if (lost > 0) process.exitCode = 1;

  // 4. The Floor screen with 500 rows updating live: long tasks in Chromium.
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    await context.addInitScript(() => {
      const w = window as unknown as { __long: number[] };
      w.__long = [];
      new PerformanceObserver((list) => list.getEntries().forEach((e) => w.__long.push(e.duration))).observe({ type: 'longtask', buffered: true });
    });
    const page = await context.newPage();
    let floorLoads = 0;
    page.on('request', (r) => void (r.url().includes('/cati/floor') && floorLoads++));
    await page.goto(c.uiLink);
    await page.locator('.floor-table tbody tr').nth(SESSIONS - 1).waitFor({ timeout: 30_000 });
    await page.locator('.live-state', { hasText: /^Live$/ }).waitFor({ timeout: 30_000 });
    await page.evaluate(() => ((window as unknown as { __long: number[] }).__long = []));
    floorLoads = 0;
    const seconds = 15;
    const start = performance.now();
    for (let i = 0; performance.now() - start < seconds * 1000 && i < seconds * RATE; ) {
      const batch = Array.from({ length: RATE / 10 }, (_, k) => ({ InterviewerId: ids[(i + k) % SESSIONS], Time: iso(Date.now() - 1000), Duration: 30, SurveyId: 'p900', TelephoneNumber: `0601${i + k}`, ExtendedStatus: 1 }));
      i += batch.length;
      await Promise.all(batch.map((r) => call('POST', '/cati/callhistory', c.dialer, r)));
      await sleep(100);
    }
    const long = await page.evaluate(() => (window as unknown as { __long: number[] }).__long);
    const rows = await page.locator('.floor-table tbody tr').count();
    const blocking = long.reduce((s, d) => s + Math.max(0, d - 50), 0);
    console.log(
      `renderer: ${rows} floor rows, ${seconds} s of live updates (${floorLoads} /cati/floor loads): ${long.length} long tasks, ` +
        `max ${long.length ? Math.max(...long).toFixed(0) : 0} ms, blocking time ${blocking.toFixed(0)} ms (${((blocking / (seconds * 1000)) * 100).toFixed(1)} % of the time)`,
    );
  } finally {
    await browser.close();
  }
} finally {
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  if (process.env.CATI_BENCH_KEEP) console.log(`data dir kept: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
