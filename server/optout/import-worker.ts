/**
 * Entry of the write worker (started by import-service.ts): it never sees the uploaded file. It stages the
 * valid values the parse worker sends over its port in a TEMP table of its own SQLite connection, reports
 * `parsed`, and on the main thread's go-ahead writes them in one short transaction. SQLite only: the service
 * sends PostgreSQL imports through the Store instead (import-store-write.ts).
 */
import { once } from 'node:events';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.ts';
import { SqliteStore } from '../db/sqlite-store.ts';
import type { ParsedMessage, WorkerReply, WriteJob } from './import-protocol.ts';
import { EntryImporter } from './import-write.ts';

const job = workerData as WriteJob;
const reply = (message: WorkerReply) => parentPort!.postMessage(message);

try {
  const db = openDatabase(job.dbFile, { migrate: false });
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
    await once(parentPort!, 'message'); // the go-ahead: the main thread has stopped the read timer
    reply({ type: 'done', result: await importer.write(job.listId, job.actor) });
    db.pragma('wal_checkpoint(PASSIVE)');
  } finally {
    db.close();
  }
} catch (err) {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') throw err;
  reply({ type: 'failed', code, message: (err as Error).message });
}
