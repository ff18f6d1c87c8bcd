/**
 * Runs read statements off the main thread: one worker (read-worker.ts) per SQLite database file, started on
 * first use and stopped after IDLE_MS without work (it never keeps the process alive). SqliteStore runs a read on
 * it, outside a transaction, when its plan scans a large table from its start or aggregates its rows
 * (db/large-scans.ts), so a GROUP BY over a million rows costs the event loop one message.
 */
import type { Worker } from 'node:worker_threads';
import { siblingModule, startModuleWorker } from '../start-worker.ts';

/** A statement and its parameters (the shape of odata's SqlFragment; the data layer imports nothing above it). */
interface SqlFragment {
  sql: string;
  params: unknown[];
}

/** One read statement; `raw`: rows as arrays of values (better-sqlite3's raw mode), else as objects. */
export interface ReadRequest {
  id: number;
  rows: SqlFragment;
  raw?: boolean;
}

/** The worker's answer: the rows of a request, or the SQL error's message. */
export type ReadReply = { id: number; rows: Record<string, unknown>[] | unknown[][] } | { id: number; error: string };

const IDLE_MS = 30_000;

interface Pool {
  worker: Worker;
  waiting: Map<number, { resolve: (r: ReadReply) => void; reject: (e: Error) => void }>;
  idle?: NodeJS.Timeout;
}

const pools = new Map<string, Pool>();
let nextId = 1;

function poolOf(dbFile: string): Pool {
  const existing = pools.get(dbFile);
  if (existing) return existing;
  const worker = startModuleWorker(siblingModule('read-worker', import.meta.url), { workerData: { dbFile } });
  const pool: Pool = { worker, waiting: new Map() };
  const fail = (err: Error) => {
    if (pools.get(dbFile) === pool) pools.delete(dbFile);
    for (const w of pool.waiting.values()) w.reject(err);
    pool.waiting.clear();
  };
  worker.on('message', (reply: ReadReply) => {
    pool.waiting.get(reply.id)?.resolve(reply);
    pool.waiting.delete(reply.id);
    if (pool.waiting.size === 0) {
      worker.unref();
      pool.idle = setTimeout(() => {
        if (pools.get(dbFile) === pool) pools.delete(dbFile);
        void worker.terminate();
      }, IDLE_MS).unref();
    }
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`The read worker stopped (exit code ${code})`)));
  pools.set(dbFile, pool);
  return pool;
}

/** Stops the read worker of `dbFile` (the server is closing; its connection must not outlive the server's). */
export async function closeReadPool(dbFile: string): Promise<void> {
  const pool = pools.get(dbFile);
  if (!pool) return;
  pools.delete(dbFile);
  clearTimeout(pool.idle);
  await pool.worker.terminate();
}

/** Runs a rows statement on the read worker of `dbFile` (`'raw'`: rows as arrays); SQL errors reject. */
export function runRead(dbFile: string, rows: SqlFragment, mode: 'objects' | 'raw' = 'objects'): Promise<{ rows: Record<string, unknown>[] | unknown[][] }> {
  const pool = poolOf(dbFile);
  clearTimeout(pool.idle);
  pool.worker.ref();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pool.waiting.set(id, {
      resolve: (reply) => ('error' in reply ? reject(new Error(reply.error)) : resolve(reply)),
      reject,
    });
    pool.worker.postMessage({ id, rows, raw: mode === 'raw' } satisfies ReadRequest);
  });
}
