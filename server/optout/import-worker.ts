/**
 * Entry of the disposable import worker (started by import-service.ts with resource limits): a file path
 * in, counts out. Reads, parses and validates off the main thread (the xlsx parser never sees the main
 * thread's objects), stages the values in a TEMP table of its own SQLite connection, then writes them in
 * one short transaction.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.ts';
import { entryChecker, ImportFileError, readTextValues } from './import-parse.ts';
import type { ImportJob, WorkerReply } from './import-protocol.ts';
import { EntryImporter } from './import-write.ts';

const job = workerData as ImportJob;
const reply = (message: WorkerReply) => parentPort!.postMessage(message);

async function readValues(): Promise<Iterable<string>> {
  const bytes = new Uint8Array(readFileSync(job.filePath));
  if (job.format === 'text') return readTextValues(bytes, job.maxRows);
  const { readXlsxValues } = await import('./import-xlsx.ts');
  return readXlsxValues(bytes, job.maxRows);
}

try {
  const db = openDatabase(job.dbFile, { migrate: false });
  // This connection checkpoints the WAL itself, after answering: the client does not wait for it, and the
  // main thread's connection does not inherit a large WAL to copy back on its next write.
  db.pragma('wal_autocheckpoint = 0');
  try {
    const importer = new EntryImporter(db, job.kind, entryChecker(job.kind));
    importer.addAll(await readValues());
    reply({ type: 'parsed' });
    await once(parentPort!, 'message'); // the go-ahead: the main thread has stopped the read timer
    reply({ type: 'done', result: importer.write(job.listId, job.actor) });
    db.pragma('wal_checkpoint(PASSIVE)');
  } finally {
    db.close();
  }
} catch (err) {
  if (err instanceof ImportFileError) reply({ type: 'failed', status: err.status, message: err.message });
  else {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'string') throw err;
    reply({ type: 'failed', code, message: (err as Error).message });
  }
}
