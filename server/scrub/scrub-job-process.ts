/**
 * Entry of a scrub's job process (started by scrub-runner.ts through db/job-process.ts). Everything a scrub needs
 * memory for happens here, not in the server's process: the parse worker thread (scrub-parse-worker.ts: the
 * untrusted file, the list's index, the result files; no database handle), the list read from the database and
 * sent to it, and the result files copied into the database at the end (job-files.ts), on this process's own
 * connection. When the job is over the server stops the process and the system takes all of it back
 * (docs/performance.md#memory-after-a-job). See scrub-protocol.ts for the conversation.
 */
import { fromServer, jobData, toServer } from '../db/job-port.ts';
import { openJobStore } from '../db/open-store.ts';
import { siblingModule, startModuleWorker } from '../db/start-worker.ts';
import type { Store } from '../db/store.ts';
import { saveJobFile } from './job-files.ts';
import { sendPages } from './list-entries.ts';
import type { FromJob, ScrubJobData, Start, ToJob } from './scrub-protocol.ts';
import { WorkerChannel } from './worker-channel.ts';

const data = jobData<ScrubJobData>();
const say = (m: FromJob) => toServer(m);
const worker = startModuleWorker(siblingModule('scrub-parse-worker', import.meta.url), {
  workerData: data.parse,
  resourceLimits: { maxOldGenerationSizeMb: data.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
});
const channel = new WorkerChannel(worker, data.heapMb);
let opened: (url: string) => void;
const database = new Promise<string>((resolve) => (opened = resolve));
/** The server's `start`, relayed to the worker (it names the result files). */
let start: Start | undefined;
fromServer((message) => {
  const m = message as ToJob;
  if (m.type === 'database') opened(m.url);
  else if (channel.open) channel.send((start = m)); // else the worker has failed, and said so
});

/** Reads the list from the database and sends it to the worker, from the start (while it reads the head and counts). */
async function sendList(store: Store): Promise<void> {
  for (const { query, params, listId } of data.list) await sendPages(store, query, params, listId, (chunk) => channel.send(chunk));
  channel.send({ type: 'entriesEnd' });
  // What the list left on this thread's heap (the database's chunks, sent on) goes now, before the worker's peak:
  // ~20 MB of the job's RSS at 1,000,000 entries (docs/performance.md#memory-after-a-job).
  (globalThis as { gc?: () => void }).gc?.();
}

/** Relays the worker's messages; stores the result files once it has written them. */
async function run(): Promise<void> {
  const store = await openJobStore(await database);
  const listing = sendList(store);
  listing.catch(() => undefined); // a bad file stops the worker first: the channel refuses more
  try {
    for (;;) {
      const m = await channel.next();
      if (m.type === 'end') {
        let files;
        try {
          files = { kept: await saveJobFile(store, data.jobId, 'kept', start!.keptPath), removed: await saveJobFile(store, data.jobId, 'removed', start!.removedPath) };
        } catch (err) {
          throw new Error(`its result could not be stored: ${(err as Error).message}`, { cause: err });
        }
        say({ type: 'end', files });
        return;
      }
      say(m);
      if (m.type === 'failed') return;
      // The worker matches no row before the whole list has come: a list that could not be read is the job's failure.
      if (m.type === 'count') await listing;
    }
  } finally {
    await channel.stop();
    await store.close();
  }
}

// Once it has said it is over (end, failed or error), the server stops this process.
run().catch((err: unknown) => say({ type: 'error', message: err instanceof Error ? err.message : String(err) }));
