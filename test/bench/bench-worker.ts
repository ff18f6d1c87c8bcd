/**
 * A server for the benchmarks, run in a worker thread so the load generator has the other core:
 * `app` (the real server, with an event-loop-delay monitor), `empty` (bare Node http answering `{}`),
 * `select` (bare Node http running one prepared SELECT with `JSON.stringify`), `unsubscribe` (bare http
 * answering a fixed small HTML page), `blacklist-import` (bare http parsing an Import body and inserting its
 * numbers, blacklist-bare.ts). Messages: `{op: 'eld-reset'}`, `{op: 'eld-max'}` (answers the
 * worst delay in ms since the reset), `{op: 'close'}`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import pg from 'pg';
import { pgTypes } from '../../server/db/pg-sql.ts';
import { bareImportHandler } from './blacklist-bare.ts';
import { pageSql } from './cati-bare.ts';
import { databaseFile, defaultConfig, type ServerConfig } from '../../server/config.ts';
import { startServer } from '../../server/server.ts';

/** What the bench passes to a worker. */
export interface BenchWorkerData {
  mode: 'app' | 'empty' | 'select' | 'page' | 'blacklist-import';
  dataDir: string;
  key: string;
  /** `select` on PostgreSQL (else the data dir's SQLite file): the page SQL of cati-bare.ts, bound with the query string's `a` and `b`. */
  database?: string;
  /** `select` on PostgreSQL: keep one generic plan (plan_cache_mode), as the API does for this page. */
  fixedPlan?: boolean;
  /** `app`: config overrides (e.g. raised rate limits). */
  config?: Partial<ServerConfig>;
}

const data = workerData as BenchWorkerData;
const port = parentPort!;
const eld = monitorEventLoopDelay({ resolution: 1 });
eld.enable();

let url: string;
let close: () => Promise<void>;
if (data.mode === 'app') {
  const server = await startServer(defaultConfig({ port: 0, host: '127.0.0.1', dataDir: data.dataDir, apiKey: data.key, ...data.config }));
  url = server.url;
  close = () => server.close();
} else if (data.mode === 'blacklist-import') {
  const bare = await bareImportHandler(data.database ? { url: data.database } : { file: databaseFile(data.dataDir) });
  const http = createServer(bare.handle);
  await new Promise<void>((ok) => http.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  close = async () => {
    http.closeAllConnections();
    await new Promise((ok) => http.close(ok));
    await bare.close();
  };
} else {
  const engine = data.database ? 'postgres' : 'sqlite';
  const db = data.mode === 'select' && !data.database ? new Database(databaseFile(data.dataDir), { readonly: true }) : null;
  const stmt = db?.prepare(pageSql('sqlite'));
  const pool = data.mode === 'select' && data.database ? new pg.Pool({ connectionString: data.database, types: pgTypes, max: 4, ...(data.fixedPlan ? { options: '-c plan_cache_mode=force_generic_plan' } : {}) }) : null;
  const page = Buffer.from('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Unsubscribe</title></head><body><p>Unsubscribe</p></body></html>');
  const http = createServer((req, res) => {
    if (data.mode === 'empty') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    } else if (data.mode === 'page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    } else {
      const q = new URL(req.url!, 'http://x').searchParams;
      const [a, b] = [Number(q.get('a')), Number(q.get('b'))];
      const send = (rows: unknown[]) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ value: rows }));
      if (stmt) send(stmt.all({ a, b }));
      else void pool!.query({ name: 'page', text: pageSql(engine, data.fixedPlan), values: [a, b] }).then((r) => send(r.rows));
    }
  });
  http.keepAliveTimeout = 5000;
  await new Promise<void>((ok) => http.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  close = async () => {
    http.closeAllConnections();
    await new Promise((ok) => http.close(ok));
    db?.close();
    await pool?.end();
  };
}

port.on('message', async (m: { op: string }) => {
  if (m.op === 'eld-reset') {
    eld.reset();
    port.postMessage({ op: 'eld-reset' });
  } else if (m.op === 'eld-max') {
    port.postMessage({ op: 'eld-max', ms: eld.max / 1e6 });
  } else if (m.op === 'close') {
    eld.disable();
    await close();
    port.postMessage({ op: 'closed' });
  }
});
port.postMessage({ op: 'ready', url });
