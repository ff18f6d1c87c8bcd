/**
 * Audit log benchmark (`npm run bench -- audit`): fills a temp data dir with 500,000 audit rows, starts a real
 * server on 127.0.0.1:0 and compares, as ratios measured in the same run:
 * - a deep keyset page (`$skiptoken` near the oldest rows) and a filtered page against the first page
 *   (goal: ≤ 2×, keyset paging does not slow down with depth);
 * - the whole `$format=csv` export over HTTP against a bare `SELECT … iterate()` of the same rows into CSV text
 *   in this process (goal: ≤ 4×), and the RSS growth during the export (goal: < 64 MB, streamed).
 * Bounded in runs and time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeCursor } from '../../server/audit/audit-query.ts';
import { databaseFile, defaultConfig } from '../../server/config.ts';
import { openDatabase } from '../../server/db/open.ts';
import { startServer } from '../../server/server.ts';

const ROWS = Number(process.env.AUDIT_BENCH_ROWS ?? 500_000);
const RUNS = 20;
const KEY = 'bench-key-0123456789abcdef';
const ENTITIES = ['blacklist', 'groups', 'interviewers', 'assignments', 'optout-emails', 'keys'];

const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;
const dir = mkdtempSync(join(tmpdir(), 'cati-audit-bench-'));

try {
  const db = openDatabase(databaseFile(dir));
  const start = Date.now() - ROWS * 1000;
  const insert = db.prepare('INSERT INTO audit_log (time, actor_key_id, actor, action, entity, entity_id, changes) VALUES (?, ?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) {
      insert.run(start + i * 1000, i % 7, `key ${i % 7}`, 'updated', ENTITIES[i % ENTITIES.length], String(i), JSON.stringify({ Name: [`old ${i}`, `new ${i}`] }));
    }
  })();
  const bareStart = performance.now();
  let bareChars = 0;
  for (const r of db.prepare('SELECT id, time, actor_key_id, actor, action, entity, entity_id, changes FROM audit_log ORDER BY time DESC, id DESC').raw().iterate()) {
    bareChars += `${(r as unknown[]).join(',')}\r\n`.length;
  }
  const bareMs = performance.now() - bareStart;
  db.close();

  const server = await startServer(defaultConfig({ port: 0, host: '127.0.0.1', dataDir: dir, apiKey: KEY }));
  const get = async (path: string) => {
    const t0 = performance.now();
    const res = await fetch(path.startsWith('http') ? path : server.url + path, { headers: { authorization: `Bearer ${KEY}` } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
    return { ms: performance.now() - t0, text };
  };
  const time = async (path: string) => {
    const ms: number[] = [];
    const deadline = Date.now() + 30_000;
    for (let i = 0; i < RUNS && Date.now() < deadline; i++) ms.push((await get(path)).ms);
    return median(ms);
  };
  try {
    await get('/admin/audit?$top=1'); // warm up
    const first = await time('/admin/audit?$top=1000');
    // A page near the oldest rows: the cursor of the row with id 2001 (inserted 2,000 s after the first).
    const deepToken = encodeCursor({ time: start + 2000 * 1000, id: 2001 });
    const deep = await time(`/admin/audit?$top=1000&$skiptoken=${deepToken}`);
    const from = new Date(start + Math.floor(ROWS / 2) * 1000).toISOString();
    const filtered = await time(`/admin/audit?$top=1000&entity=groups&from=${from}`);
    console.log(`first page (1000 rows): ${first.toFixed(1)} ms (median)`);
    console.log(`deep $skiptoken page: ${deep.toFixed(1)} ms = ${(deep / first).toFixed(2)}× the first page (goal ≤ 2×)`);
    console.log(`entity + from page: ${filtered.toFixed(1)} ms = ${(filtered / first).toFixed(2)}× the first page (goal ≤ 2×)`);

    // The client reads the export as a stream and keeps only counts, so the RSS growth is the server's.
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const t0 = performance.now();
    const res = await fetch(`${server.url}/admin/audit?$format=csv`, { headers: { authorization: `Bearer ${KEY}` } });
    let bytes = 0;
    let lines = 0;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const b of chunk) if (b === 10) lines++;
    }
    const csvMs = performance.now() - t0;
    clearInterval(sampler);
    console.log(
      `CSV export of ${lines - 1} rows (${(bytes / 1048576).toFixed(1)} MB): ${csvMs.toFixed(0)} ms; bare SELECT iterate → CSV text ` +
        `(${bareChars} chars): ${bareMs.toFixed(0)} ms; ratio ${(csvMs / bareMs).toFixed(2)}× (goal ≤ 4×, includes HTTP)`,
    );
    console.log(`RSS growth during the export: ${((peak - rssBefore) / 1048576).toFixed(1)} MB (goal < 64 MB: streamed, never whole in memory)`);
  } finally {
    await server.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
