/**
 * Entry of the disposable import worker (started by import-service.ts with resource limits): bytes in,
 * counts out. Parses and validates the file off the main thread (the xlsx parser never sees the main
 * thread's objects), then writes on its own SQLite connection in one short transaction.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.ts';
import { ImportFileError, readTextValues, readXlsxValues, validateValues } from './import-parse.ts';
import type { ImportJob, WorkerReply } from './import-protocol.ts';
import { writeEntries } from './import-write.ts';

const job = workerData as ImportJob;
const reply = (message: WorkerReply) => parentPort!.postMessage(message);

try {
  let values: string[] | null =
    job.format === 'xlsx' ? readXlsxValues(job.bytes, job.maxRows) : readTextValues(job.bytes, job.maxRows);
  const { valid, invalid } = validateValues(values, job.kind);
  values = null;
  reply({ type: 'parsed', rows: valid.length + invalid });
  const db = openDatabase(job.dbFile, { migrate: false });
  try {
    const newRows = writeEntries(db, job.kind, job.listId, valid);
    reply({ type: 'done', result: { newRows, duplicatedRows: valid.length - newRows, invalidRows: invalid } });
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
