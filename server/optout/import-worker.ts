/**
 * Entry of an import worker (started by import-service.ts with memory limits; kept between imports,
 * import-workers.ts). For each job it reads and validates a text file itself (import-parse.ts: our own code, no
 * third-party parser), or receives the values a workbook parser sends (import-parse-worker.ts, the thread that
 * runs the xlsx library on untrusted files, which holds no database handle), and feeds the valid values into the
 * Store's bulk insert it was handed (`job.link`, db/bulk-insert.ts). How they are written is the Store's
 * business: on SQLite this thread stages them on a connection of its own, on PostgreSQL they go back to the main
 * thread. It then reports the counts (`parsed`); the main thread commits the bulk insert.
 *
 * The main thread never terminates this worker while it may be inside SQLite (Worker.terminate() while
 * better-sqlite3 builds an error, e.g. SQLITE_FULL on a full disk, aborts the whole process): it raises the
 * `stop` flag (seen between two batches) and sends 'stop', which this worker obeys between two of its steps:
 * close its connections (rolling back anything unfinished) and leave.
 */
import type { MessagePort } from 'node:worker_threads';
import { parentPort, workerData } from 'node:worker_threads';
import { closeBulkFeeds, openBulkFeed, type BulkFeed } from '../db/bulk-insert.ts';
import { FileError } from '../files/file-error.ts';
import { checkValues, readTextFileValues } from './import-parse.ts';
import { IMPORT_BATCH, type FileCounts, type ImportJob, type ImportWorkerStart, type ParsedMessage, type WorkerReply } from './import-protocol.ts';

const { stop } = workerData as ImportWorkerStart;
const reply = (message: WorkerReply) => parentPort!.postMessage(message);

/** Thrown between two batches once the main thread raised the stop flag. */
class Stopped extends Error {}

function feedBatch(feed: BulkFeed, values: string[]): void {
  if (Atomics.load(stop, 0) !== 0) throw new Stopped();
  feed.add(values);
}

/** Feeds what a workbook parser sends over `port` until its counts arrive. */
function receive(port: MessagePort, feed: BulkFeed): Promise<FileCounts> {
  return new Promise((resolve, reject) => {
    port.on('message', (m: ParsedMessage) => {
      try {
        if ('values' in m) return feedBatch(feed, m.values);
        port.close();
        resolve(m.end);
      } catch (err) {
        port.close();
        reject(err as Error);
      }
    });
  });
}

/** Reads and validates a text file, feeding its valid values. */
function readFile(path: string, tab: boolean, job: ImportJob, feed: BulkFeed): FileCounts {
  const { encoding, values } = readTextFileValues(path, job.maxRows, tab);
  return { ...checkValues(values, job.kind, IMPORT_BATCH, (batch) => feedBatch(feed, batch)), encoding };
}

/** One import: read (or receive) and feed, then report the counts; a failure is reported with its status or code. */
async function run(job: ImportJob): Promise<void> {
  try {
    const feed = openBulkFeed(job.link);
    const counts = 'filePath' in job.source ? readFile(job.source.filePath, job.source.tab, job, feed) : await receive(job.source.port, feed);
    feed.end();
    reply({ type: 'parsed', counts });
  } catch (err) {
    if ('port' in job.source) job.source.port.close();
    if (err instanceof Stopped) return; // the main thread has given up on this import; 'stop' follows
    // A failed import ends this thread's connection first (rolling back anything unfinished); the service then
    // stops the worker and a later import starts a fresh one.
    closeBulkFeeds();
    if (err instanceof FileError) return reply({ type: 'failed', status: err.status, message: err.message });
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'string') throw err;
    reply({ type: 'failed', code, message: (err as Error).message });
  }
}

parentPort!.on('message', (m: ImportJob | 'stop') => {
  if (m !== 'stop') return void run(m);
  try {
    closeBulkFeeds();
  } finally {
    process.exit(0); // in a worker: ends this thread only
  }
});
