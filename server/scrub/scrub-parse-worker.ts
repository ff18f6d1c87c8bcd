/**
 * Entry of a scrub's parse worker (started by scrub-runner.ts with memory limits). It holds NO database
 * handle: it reads the untrusted file, normalises each row's key with the lists' own functions (the
 * blacklist's `normaliseTelephoneNumber` as Controller.Check does, the opt-out import's `checkEmail`),
 * matches it against the list the main thread sends (list-matcher.ts) and appends the row to the kept or
 * the removed file itself, so rows never cross the thread boundary: the main thread only reads the list
 * from the database and hears the counts. See scrub-protocol.ts for the conversation.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { checkPhoneRegion, normaliseTelephoneNumber } from '../phone/phone-region.ts';
import { FileError, tooManyRows } from '../files/file-error.ts';
import { checkEmail, type Checked } from '../email/normalise.ts';
import { unguardCell } from '../lib/csv-cell.ts';
import { loadAnnotate } from '../phone/line-type.ts';
import { DigitTable } from './digit-table.ts';
import { countRows, openRows } from './file-rows.ts';
import { listMatcher } from './list-matcher.ts';
import type { EntriesChunk, FromWorker, ScrubParseJob, ToWorker } from './scrub-protocol.ts';

/** Text gathered before it is written (characters per write: small, so that the gathered lines die young). */
const WRITE_CHARS = 64 * 1024;
const APOSTROPHE = 39;
const job = workerData as ScrubParseJob;
const port = parentPort!;
const send = (m: FromWorker) => port.postMessage(m);
const matcher = listMatcher(job.kind);

type Start = Extract<ToWorker, { type: 'start' }>;
let started: ((m: Start) => void) | undefined;
// The list's chunks wait here until the rows are counted (so `start` and the count are never held up
// behind indexing), then are indexed as they come.
const pending: EntriesChunk[] = [];
let listDone = false;
let arrived: (() => void) | undefined;
port.on('message', (m: ToWorker) => {
  if (m.type === 'start') started?.(m);
  else {
    if (m.type === 'entries') pending.push(m);
    else listDone = true;
    arrived?.();
  }
});

/** Indexes the list's chunks as they arrive, until the last one. */
async function indexList(): Promise<void> {
  for (;;) {
    for (let chunk = pending.shift(); chunk; chunk = pending.shift()) matcher.add(chunk);
    if (listDone) break;
    await new Promise<void>((resolve) => (arrived = resolve));
  }
  matcher.seal();
}

/** Digits only, 1..32 of them: what the docs/cati-api.md#odata rule answers for such a cell is the cell itself. */
const PLAIN_DIGITS = /^\d{1,32}$/;

function keyOf(): (cell: string) => string | null {
  if (job.kind === 'phone') {
    const region = job.region ? checkPhoneRegion(job.region) : null;
    return (cell) => {
      // Without a region a cell of bare digits normalises to itself (digitsOnly strips nothing from it).
      if (region === null && PLAIN_DIGITS.test(cell)) return cell;
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

/** A result file written in large appends. */
class ResultFile {
  private readonly fd: number;
  private text = '';
  constructor(path: string, head: string) {
    this.fd = openSync(path, 'w', 0o600);
    this.text = head;
  }
  add(line: string): void {
    this.text += line;
    if (this.text.length >= WRITE_CHARS) this.flush();
  }
  flush(): void {
    if (this.text !== '') writeSync(this.fd, this.text);
    this.text = '';
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** Where each key first appeared (`dedupe=true`): 1-based data rows by normalised key. */
interface SeenKeys {
  get(key: string): number | undefined;
  set(key: string, row: number): void;
}

async function run(): Promise<void> {
  const pass = await openRows(job.filePath, job.format, job.maxRows, { sheet: job.sheet }, false);
  const head: string[][] = [];
  for (const rows of pass()) {
    head.push(...rows.slice(0, job.headRows - head.length));
    if (head.length >= job.headRows) break;
  }
  const start = await new Promise<Start>((resolve) => {
    started = resolve;
    send({ type: 'head', rows: head, encoding: pass.encoding });
  });
  const count = (await countRows(job.filePath, job.format, pass)) - (start.header ? 1 : 0);
  if (count > job.maxRows) throw tooManyRows(job.maxRows);
  if (count <= 0) throw new FileError(400, 'The file has a header but no data rows');
  send({ type: 'count', rows: Math.max(0, count) });
  await indexList();

  const key = keyOf();
  const { column, width } = start;
  const seen: SeenKeys | undefined = start.dedupe ? (job.kind === 'phone' ? new DigitTable() : new Map<string, number>()) : undefined;
  const annotate = start.annotate && job.kind === 'phone' ? loadAnnotate() : undefined;
  const duplicate = ['duplicate', ...matcher.invalid.slice(1)];
  const kept = new ResultFile(start.keptPath, start.keptHead);
  const removed = new ResultFile(start.removedPath, start.removedHead);
  const counts = { type: 'progress' as const, processed: 0, kept: 0, removed: 0, invalid: 0, duplicates: 0 };
  let skip = start.header;
  let row = 0;
  for (const rows of pass()) {
    for (const cells of rows) {
      if (skip) {
        skip = false;
        continue;
      }
      row++;
      const cell = cells[column] ?? '';
      // The sample's cells stay as uploaded; only the key is read with the export's guard undone.
      const k = key(cell.charCodeAt(0) === APOSTROPHE ? unguardCell(cell) : cell);
      let extra = k === null ? matcher.invalid : matcher.match(k);
      let matchedRow: string | undefined;
      if (seen && k !== null) {
        if (!extra) {
          const first = seen.get(k);
          if (first === undefined) seen.set(k, row);
          else {
            extra = duplicate;
            matchedRow = String(first);
          }
        }
        matchedRow ??= '';
      } else if (seen) matchedRow = '';
      const annotation = annotate ? (k === null ? ['', '', ''] : [k, ...annotate(k)]) : undefined;
      if (!extra) {
        if (annotation) {
          while (cells.length < width) cells.push('');
          kept.add(JSON.stringify(cells.concat(annotation)) + '\n');
        } else kept.add(JSON.stringify(cells) + '\n');
        counts.kept++;
        continue;
      }
      if (k === null) counts.invalid++;
      else counts.removed++;
      if (matchedRow) counts.duplicates++;
      while (cells.length < width) cells.push('');
      const added = matchedRow === undefined ? extra : extra.concat(matchedRow);
      removed.add(JSON.stringify(cells.concat(added, annotation ?? [k ?? ''])) + '\n');
    }
    counts.processed = counts.kept + counts.removed + counts.invalid;
    send(counts);
  }
  kept.close();
  removed.close();
  send({ type: 'end' });
}

run().then(
  () => port.close(),
  (err: unknown) => {
    if (!(err instanceof FileError)) throw err;
    send({ type: 'failed', status: err.status, message: err.message });
    port.close();
  },
);
