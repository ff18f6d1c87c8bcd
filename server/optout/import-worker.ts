/**
 * Entry of a write worker (started by import-workers.ts; kept between imports): it never sees an uploaded
 * file. It opens its own SQLite connection once, and for each job the main thread posts it stages the valid
 * values the parse worker sends over the job's port in a TEMP table of that connection, reports `parsed`,
 * and on the main thread's go-ahead writes them in one short transaction. SQLite only: the service sends
 * PostgreSQL imports through the Store instead (import-store-write.ts).
 */
import type { MessagePort } from 'node:worker_threads';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase, type Db } from '../db/open.ts';
import { SqliteStore } from '../db/sqlite-store.ts';
import type { ParsedMessage, WorkerReply, WriteJob, WriterStart } from './import-protocol.ts';
import { EntryImporter } from './import-write.ts';

const { dbFile } = workerData as WriterStart;
const reply = (message: WorkerReply) => parentPort!.postMessage(message);

// The main thread never terminates this worker (Worker.terminate() while better-sqlite3 builds an error, e.g.
// SQLITE_FULL from a checkpoint on a full disk, aborts the whole process: "v8::ToLocalChecked Empty MaybeLocal").
// It sends 'stop' instead, which this worker obeys between two of its steps: close the connection (rolling back
// anything unfinished) and leave.
let db: Db | undefined;
let goAhead: (() => void) | undefined;

function connection(): Db {
  if (db) return db;
  db = openDatabase(dbFile, { migrate: false });
  // This connection checkpoints the WAL itself, after answering: the client does not wait for it, and the
  // main thread's connection does not inherit a large WAL to copy back on its next write.
  db.pragma('wal_autocheckpoint = 0');
  return db;
}

/** Receives what the parser sends over `port` into `importer` until its counts arrive. */
function stageAll(port: MessagePort, importer: EntryImporter): Promise<void> {
  return new Promise<void>((resolve) => {
    port.on('message', (m: ParsedMessage) => {
      if ('values' in m) importer.stage(m.values);
      else {
        importer.counted(m.end);
        port.close();
        resolve();
      }
    });
  });
}

/** One import: stage, report `parsed`, wait for the go-ahead, write, report the result, checkpoint. */
async function write(job: WriteJob): Promise<void> {
  const told = new Promise<void>((resolve) => (goAhead = resolve));
  try {
    const conn = connection();
    conn.pragma(`busy_timeout = ${Math.max(0, Math.floor(job.busyTimeoutMs))}`);
    const importer = new EntryImporter(new SqliteStore(conn, dbFile), job.kind);
    await stageAll(job.port, importer);
    reply({ type: 'parsed' });
    await told; // the go-ahead: the main thread has stopped the read timer
    reply({ type: 'done', result: await importer.write(job.listId, job.actor) });
    try {
      conn.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // e.g. SQLITE_FULL on a full disk: the WAL keeps the committed import; a later checkpoint folds it in
    }
  } catch (err) {
    // A failed import ends this worker's connection first (rolling back anything unfinished); the service
    // then stops the worker and starts a fresh one for a later import.
    try {
      db?.close();
    } finally {
      db = undefined;
    }
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'string') throw err;
    reply({ type: 'failed', code, message: (err as Error).message });
  }
}

parentPort!.on('message', (m: WriteJob | 'write' | 'stop') => {
  if (m === 'write') return goAhead?.();
  if (m === 'stop') {
    try {
      db?.close();
    } finally {
      process.exit(0); // in a worker: ends this thread only
    }
  }
  void write(m);
});
