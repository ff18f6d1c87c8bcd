/**
 * Entry of a scrub's parse worker (started by scrub-runner.ts with memory limits). It holds NO database
 * handle: it reads the untrusted file, and normalises each row's key with the lists' own functions
 * (the blacklist's `normaliseTelephoneNumber` as Controller.Check does, the opt-out import's `checkEmail`),
 * so the main thread only looks keys up. See scrub-protocol.ts for the conversation.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { checkPhoneRegion, normaliseTelephoneNumber } from '../cati/phone-region.ts';
import { ImportFileError, tooManyRows } from '../optout/import-parse.ts';
import { checkEmail, type Checked } from '../optout/normalise.ts';
import { countRows, openRows } from './file-rows.ts';
import type { FromWorker, ScrubParseJob, ToWorker } from './scrub-protocol.ts';

const BATCH = 5000;
const job = workerData as ScrubParseJob;
const port = parentPort!;
const send = (m: FromWorker) => port.postMessage(m);

let credits = 4;
let wake: (() => void) | undefined;
let started: ((m: Extract<ToWorker, { type: 'start' }>) => void) | undefined;
port.on('message', (m: ToWorker) => {
  if (m.type === 'start') started?.(m);
  else {
    credits++;
    wake?.();
  }
});

function keyOf(): (cell: string) => string | null {
  if (job.kind === 'phone') {
    const region = job.region ? checkPhoneRegion(job.region) : null;
    return (cell) => {
      const r = normaliseTelephoneNumber(cell, 'Equal', region);
      return r.ok ? r.value : null;
    };
  }
  const domains = new Map<string, Checked>();
  return (cell) => {
    if (domains.size > 100_000) domains.clear();
    const r = checkEmail(cell, domains);
    return r.ok ? r.value : null;
  };
}

async function run(): Promise<void> {
  const pass = await openRows(job.filePath, job.format, job.maxRows);
  const head: string[][] = [];
  for (const rows of pass()) {
    head.push(...rows.slice(0, job.headRows - head.length));
    if (head.length >= job.headRows) break;
  }
  const start = await new Promise<Extract<ToWorker, { type: 'start' }>>((resolve) => {
    started = resolve;
    send({ type: 'head', rows: head });
  });
  const count = (await countRows(job.filePath, job.format, pass)) - (start.header ? 1 : 0);
  if (count > job.maxRows) throw tooManyRows(job.maxRows);
  send({ type: 'count', rows: Math.max(0, count) });

  const key = keyOf();
  let skip = start.header;
  let lines: string[] = [];
  let keys: (string | null)[] = [];
  const flush = async () => {
    while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
    credits--;
    send({ type: 'batch', lines, keys });
    lines = [];
    keys = [];
  };
  for (const rows of pass()) {
    for (const cells of rows) {
      if (skip) {
        skip = false;
        continue;
      }
      lines.push(JSON.stringify(cells));
      keys.push(key(cells[start.column] ?? ''));
      if (lines.length === BATCH) await flush();
    }
  }
  if (lines.length > 0) await flush();
  send({ type: 'end' });
}

run().then(
  () => port.close(),
  (err: unknown) => {
    if (!(err instanceof ImportFileError)) throw err;
    send({ type: 'failed', status: err.status, message: err.message });
    port.close();
  },
);
