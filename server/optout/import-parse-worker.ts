/**
 * Entry of the parse worker (started by import-service.ts with memory and time limits). It holds NO database
 * handle: it reads the untrusted file, parses and validates it, and sends the valid values over its port to
 * the write worker. Whatever a crafted workbook does to this thread's objects (prototypes included) dies
 * with it and never reaches a thread that writes.
 */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { entryChecker, ImportFileError, readTextFileValues } from './import-parse.ts';
import { MAX_INVALID_ITEMS, type InvalidItem, type ParseJob, type ParsedMessage, type WorkerReply } from './import-protocol.ts';

const BATCH = 5000;
const job = workerData as ParseJob;
const send = (message: ParsedMessage) => job.port.postMessage(message);

async function readValues(): Promise<Iterable<string>> {
  if (job.format === 'text') return readTextFileValues(job.filePath, job.maxRows);
  const { readXlsxValues } = await import('./import-xlsx.ts');
  return readXlsxValues(readFileSync(job.filePath), job.maxRows);
}

try {
  const check = entryChecker(job.kind);
  const invalidItems: InvalidItem[] = [];
  let batch: string[] = [];
  let valid = 0;
  let invalid = 0;
  let row = 0;
  for (const raw of await readValues()) {
    row++;
    const r = check(raw);
    if (!r.ok) {
      invalid++;
      if (invalidItems.length < MAX_INVALID_ITEMS) invalidItems.push({ row, value: raw, reason: r.reason });
      continue;
    }
    valid++;
    batch.push(r.value);
    if (batch.length === BATCH) {
      send({ values: batch });
      batch = [];
    }
  }
  if (batch.length > 0) send({ values: batch });
  send({ end: { valid, invalid, invalidItems } });
  job.port.close();
} catch (err) {
  if (!(err instanceof ImportFileError)) throw err;
  parentPort!.postMessage({ type: 'failed', status: err.status, message: err.message } satisfies WorkerReply);
}
