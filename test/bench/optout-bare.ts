/**
 * The bare baselines of the opt-out benchmark (optout-bench.ts), a plain Node http server in a process of its own
 * (`node --import tsx optout-bare.ts <import.sqlite> <export.sqlite>`; prints `listening on URL`):
 * - `POST /import`: the CSV as the raw body, read whole, split into lines, each address trimmed and lower-cased,
 *   inserted into `optout_emails` of a freshly migrated database (the same unique index) in one transaction of
 *   500-row INSERT OR IGNOREs with better-sqlite3; answers `{"newRows": n}`.
 * - `GET /export?list=N`: the export's SELECT iterated with better-sqlite3 and written as CSV lines (no quoting;
 *   the time formatted once per distinct value) in 64 KiB chunks with backpressure.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { openDatabase } from '../../server/db/open.ts';

const [importFile, exportFile] = process.argv.slice(2) as [string, string];
const CHUNK = 500;
const target = openDatabase(importFile); // migrated: the same table and indexes as the server's
const listId = Number(target.prepare("INSERT INTO optout_lists (company_id, project_id, created_at) VALUES (1, 'p9', 0) RETURNING id").pluck().get());
const tuples = (n: number) => `INSERT OR IGNORE INTO optout_emails (list_id, email_address, timestamp) VALUES ${Array<string>(n).fill('(?, ?, ?)').join(', ')}`;
const full = target.prepare(tuples(CHUNK));

const write = target.transaction((lines: string[]) => {
  const now = Date.now();
  let added = 0;
  for (let i = 1; i < lines.length; i += CHUNK) {
    const params: unknown[] = [];
    for (const line of lines.slice(i, i + CHUNK)) if (line !== '') params.push(listId, line.trim().toLowerCase(), now);
    const n = params.length / 3;
    if (n > 0) added += (n === CHUNK ? full : target.prepare(tuples(n))).run(...params).changes;
  }
  return added;
});

async function exportCsv(res: ServerResponse, list: number): Promise<void> {
  const db = new Database(exportFile, { readonly: true });
  try {
    res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
    let chunk = 'emailAddress,timestamp,unsubscribedFrom\r\n';
    const rows = db.prepare('SELECT email_address, timestamp, unsubscribed_from FROM optout_emails WHERE list_id = ? ORDER BY timestamp, id').raw();
    let [lastMs, lastIso] = [-1, ''];
    for (const [email, ms, from] of rows.iterate(list) as IterableIterator<[string, number, string | null]>) {
      if (ms !== lastMs) [lastMs, lastIso] = [ms, new Date(ms).toISOString()]; // an import's rows share one time
      chunk += `${email},${lastIso},${from ?? ''}\r\n`;
      if (chunk.length < 65_536) continue;
      if (!res.write(chunk)) await new Promise((ok) => res.once('drain', ok));
      chunk = '';
    }
    res.end(chunk);
  } finally {
    db.close();
  }
}

const server = createServer((req, res) => {
  if (req.method === 'POST') {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const added = write(Buffer.concat(parts).toString('utf8').split('\r\n'));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ newRows: added }));
    });
  } else void exportCsv(res, Number(new URL(req.url!, 'http://x').searchParams.get('list')));
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => {
  server.close();
  target.close();
  process.exit(0);
});
