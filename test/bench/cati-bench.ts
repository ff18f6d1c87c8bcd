/**
 * CATI history benchmark (`npm run bench -- cati`): seeds a temp data dir with 1,000,000 calls, starts a
 * real server on 127.0.0.1:0 and times a one-day `$filter` on /cati/callhistory, a deep `$skiptoken`
 * page and a one-day /callhistorywithvariables. Prints its figures; bounded in runs and time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseFile, defaultConfig } from '../../server/config.ts';
import { openDatabase } from '../../server/db/open.ts';
import { seedCalls } from '../../server/demo/demo.ts';
import { startServer } from '../../server/server.ts';

const CALLS = Number(process.env.CATI_BENCH_CALLS ?? 1_000_000);
const RUNS = 30;
const KEY = 'bench-key-0123456789abcdef';
const DAY = 86_400_000;

const dir = mkdtempSync(join(tmpdir(), 'cati-bench-'));
const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return `median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, min ${s[0]!.toFixed(1)} ms (${s.length} runs)`;
};

try {
  const db = openDatabase(databaseFile(dir));
  const seedStart = performance.now();
  seedCalls(db, CALLS, () => {});
  console.log(`seed: ${CALLS} calls in ${((performance.now() - seedStart) / 1000).toFixed(2)} s`);
  db.close();

  const server = await startServer(defaultConfig({ port: 0, host: '127.0.0.1', dataDir: dir, apiKey: KEY }));
  const get = async (path: string) => {
    const started = performance.now();
    const res = await fetch(path.startsWith('http') ? path : server.url + path, { headers: { authorization: `Bearer ${KEY}` } });
    const body = (await res.json()) as { value: unknown[]; '@odata.nextLink'?: string };
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return { ms: performance.now() - started, body };
  };
  const time = async (label: string, path: string) => {
    const ms: number[] = [];
    let rows = 0;
    const deadline = Date.now() + 60_000;
    for (let i = 0; i < RUNS && Date.now() < deadline; i++) {
      const r = await get(path);
      ms.push(r.ms);
      rows = r.body.value.length;
    }
    console.log(`${label}: ${stats(ms)}, ${rows} rows`);
  };
  try {
    const day = new Date(Math.floor(Date.now() / DAY) * DAY - 15 * DAY);
    const d = day.toISOString();
    const d1 = new Date(day.getTime() + DAY).toISOString();
    await get(`/cati/callhistory?$top=1`); // warm up
    await time(`GET /cati/callhistory?$filter=Time ge ${d} and Time lt ${d1}&$top=100`, `/cati/callhistory?$filter=Time ge ${d} and Time lt ${d1}&$top=100`);
    await time('same, $orderby=Time desc', `/cati/callhistory?$filter=Time ge ${d} and Time lt ${d1}&$orderby=Time desc&$top=100`);
    const skipStart = performance.now();
    const deep = await get(`/cati/callhistory?$skip=${Math.max(0, CALLS - 100_000)}`);
    console.log(`one $skip=${Math.max(0, CALLS - 100_000)} page (OFFSET, for comparison): ${(performance.now() - skipStart).toFixed(1)} ms`);
    const next = deep.body['@odata.nextLink'];
    if (next) await time(`deep $skiptoken page (after row ${Math.max(0, CALLS - 100_000) + 1000}, 1000 rows)`, next);
    await time(
      `GET /cati/callhistorywithvariables one day, breaks + logins, $top=100`,
      `/cati/callhistorywithvariables?startTime=${d}&endTime=${d1}&includeBreakTimes=true&includeLoginLogoutInfo=true&$top=100`,
    );
  } finally {
    await server.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
