/**
 * Entry of a workbook parser (started by import-service.ts with memory limits; the service stops it at its time
 * limit). It holds NO database handle: it reads the untrusted workbook with the xlsx library, validates its
 * values and sends the valid ones over the job's port to the import worker, which feeds them into the Store's
 * bulk insert (text files the import worker reads itself). The service ends this thread after its one
 * workbook, so whatever a crafted workbook does to this thread's objects (prototypes included) dies with it and
 * never reaches another import nor a thread that writes.
 */
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { FileError } from '../files/file-error.ts';
import { checkValues, columnValues, readTextFileValues, rowsOf, type FileValues } from './import-parse.ts';
import { IMPORT_BATCH, type ParseJob, type ParsedMessage, type WorkerReply } from './import-protocol.ts';

const reply = (message: WorkerReply) => parentPort!.postMessage(message);

async function readValues(job: ParseJob): Promise<FileValues> {
  if (job.format !== 'xlsx') return readTextFileValues(job.filePath, job.maxRows, job.format === 'tsv');
  const { openWorkbook } = await import('../files/xlsx-rows.ts');
  const book = openWorkbook(new Uint8Array(readFileSync(job.filePath)), job.maxRows, job.sheet);
  return { encoding: null, values: columnValues(rowsOf(book.batches()), job.maxRows) };
}

/** Reads one file; a bad file → `failed` (400/413); anything else unexpected ends the thread (the service answers 500). */
async function parse(job: ParseJob): Promise<void> {
  const send = (message: ParsedMessage) => job.port.postMessage(message);
  try {
    const { encoding, values } = await readValues(job);
    const counts = checkValues(values, job.kind, IMPORT_BATCH, (batch) => send({ values: batch }));
    send({ end: { ...counts, encoding } });
    job.port.close();
    reply({ type: 'finished' });
  } catch (err) {
    if (!(err instanceof FileError)) throw err;
    job.port.close();
    reply({ type: 'failed', status: err.status, message: err.message });
  }
}

// One job at a time: the service posts the next only after this one's `finished`.
parentPort!.on('message', (job: ParseJob) => void parse(job));
