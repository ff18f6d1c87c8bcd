/**
 * Blacklist benchmark (`npm run bench -- blacklist`): the dialer's Check and a 10,000-number Import through
 * the Store (server/cati/blacklist-service.ts), each against bare better-sqlite3 statements doing the same
 * work in the same run, over 100,000 Equal numbers and 10,000 StartWith prefixes. In process, no HTTP: the
 * figures are what the service layer adds. Every loop is bounded in runs and time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkNumber, importItems } from '../../server/cati/blacklist-service.ts';
import { SqliteStore } from '../../server/db/sqlite-store.ts';
import { quantile, report } from './bench-tools.ts';

const dir = mkdtempSync(join(tmpdir(), 'blacklist-bench-'));
const store = SqliteStore.open(join(dir, 'cati.sqlite'));
const db = store.db;
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
  const insert = db.prepare('INSERT INTO blacklist (telephone_number, type, comment, created) VALUES (?, ?, NULL, 0)');
  db.transaction(() => {
    for (let i = 0; i < 100_000; i++) insert.run(numberOf(i), 'Equal');
    for (let i = 0; i < 10_000; i++) insert.run(`4${String(1000 + i * 13)}`, 'StartWith');
  })();

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

  // Import of 10,000 new numbers (every tenth a repeat) vs a bare transaction of prepared INSERT OR IGNOREs.
  const batch = (base: number) => Array.from({ length: 10_000 }, (_, i) => `32${String(base + (i % 10 === 9 ? i - 1 : i))}`);
  const ignore = db.prepare("INSERT OR IGNORE INTO blacklist (telephone_number, type, comment, created) VALUES (?, 'Equal', NULL, 0)");
  const importMs = quantile(await times((r) => importItems(store, batch(100_000_000 + r * 100_000)), 5), 0.5);
  const bareMs = quantile(
    await times((r) => db.transaction(() => batch(500_000_000 + r * 100_000).forEach((n) => ignore.run(n)))(), 5),
    0.5,
  );
  report('Import of 10,000 numbers p50', importMs, 'ms', bareMs, '(figure)', null);
  console.log('  (API: parse and normalise, 500-row INSERT ... ON CONFLICT DO NOTHING RETURNING, audit row, event records)');
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
