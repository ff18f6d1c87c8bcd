/**
 * Entry of the write worker (started by import-service.ts): it never sees the uploaded file. It stages the
 * valid values the parse worker sends over its port in a TEMP table of its own SQLite connection, reports
 * `parsed`, and on the main thread's go-ahead writes them in one short transaction. SQLite only: the service
 * sends PostgreSQL imports through the Store instead (import-store-write.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase, type Db } from '../db/open.ts';
import { SqliteStore } from '../db/sqlite-store.ts';
import type { ParsedMessage, WorkerReply, WriteJob } from './import-protocol.ts';
import { EntryImporter } from './import-write.ts';

const job = workerData as WriteJob;
const reply = (message: WorkerReply) => parentPort!.postMessage(message);

// The main thread never terminates this worker (Worker.terminate() while better-sqlite3 builds an error, e.g.
// SQLITE_FULL from a checkpoint on a full disk, aborts the whole process: "v8::ToLocalChecked Empty MaybeLocal").
// It sends 'stop' instead, which this worker obeys between two of its steps: close the connection (rolling back
// anything unfinished) and leave.
let db: Db | undefined;
let goAhead!: () => void;
const told = new Promise<void>((resolve) => (goAhead = resolve));
const onControl = (m: 'write' | 'stop') => {
  if (m === 'write') return goAhead();
  try {
    db?.close();
  } finally {
    process.exit(0); // in a worker: ends this thread only
  }
};
parentPort!.on('message', onControl);

try {
  db = openDatabase(job.dbFile, { migrate: false });
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(job.busyTimeoutMs))}`);
  // This connection checkpoints the WAL itself, after answering: the client does not wait for it, and the
  // main thread's connection does not inherit a large WAL to copy back on its next write.
  db.pragma('wal_autocheckpoint = 0');
  try {
    const importer = new EntryImporter(new SqliteStore(db, job.dbFile), job.kind);
    await new Promise<void>((resolve) => {
      job.port.on('message', (m: ParsedMessage) => {
        if ('values' in m) importer.stage(m.values);
        else {
          importer.counted(m.end);
          job.port.close();
          resolve();
        }
      });
    });
    reply({ type: 'parsed' });
    await told; // the go-ahead: the main thread has stopped the read timer
    reply({ type: 'done', result: await importer.write(job.listId, job.actor) });
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // e.g. SQLITE_FULL on a full disk: the WAL keeps the committed import; a later checkpoint folds it in
    }
  } finally {
    db.close();
  }
} catch (err) {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') throw err;
  reply({ type: 'failed', code, message: (err as Error).message });
} finally {
  parentPort!.off('message', onControl);
}
