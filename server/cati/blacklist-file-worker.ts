/**
 * Entry of a blacklist file import's parse worker (started by blacklist-file-import.ts with memory limits).
 * It holds NO database handle: it reads the untrusted file through the one intake (openRows), finds the
 * number, `Type` and `Comment` columns, normalises each number as Controller.Import does (the phone region)
 * and sends every valid row back packed, with the invalid ones' count and the first 100 of them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FileError, tooManyRows } from '../files/file-error.ts';
import { ApiError } from '../errors.ts';
import { checkPhoneRegion, normaliseTelephoneNumber, type Normalised } from '../phone/phone-region.ts';
import { chooseColumn } from '../scrub/column-rules.ts';
import { openRows } from '../scrub/file-rows.ts';
import type { BlacklistFileJob, FromBlacklistWorker, InvalidRow } from './blacklist-file-protocol.ts';
import { MAX_COMMENT_LENGTH } from './blacklist-model.ts';

const HEAD_ROWS = 20;
const MAX_REPORTED = 100;
const job = workerData as BlacklistFileJob;
const port = parentPort!;
const send = (m: FromBlacklistWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

/** The 0-based index of a header cell named `name` (any case), or -1. */
const named = (header: readonly string[], name: string) => header.findIndex((c) => c.trim().toLowerCase() === name);

async function run(): Promise<void> {
  const pass = await openRows(job.filePath, job.format, job.maxRows, { sheet: job.sheet });
  const head: string[][] = [];
  for (const rows of pass()) {
    head.push(...rows.slice(0, HEAD_ROWS - head.length));
    if (head.length >= HEAD_ROWS) break;
  }
  const choice = chooseColumn(head, 'phone', job.column, job.header);
  const typeColumn = choice.header ? named(head[0]!, 'type') : -1;
  const commentColumn = choice.header ? named(head[0]!, 'comment') : -1;
  const rows = pass.count() - (choice.header ? 1 : 0);
  if (rows > job.maxRows) throw tooManyRows(job.maxRows);
  if (rows <= 0) throw new FileError(400, 'The file has no data rows (a header alone?)');
  send({ type: 'accepted', rows, encoding: pass.encoding });

  const region = job.region ? checkPhoneRegion(job.region) : null;
  const seen = new Map<string, Normalised>();
  const normalise = (value: string, type: 'Equal' | 'StartWith'): Normalised => {
    const key = type === 'Equal' ? value : `\u0000${value}`;
    let n = seen.get(key);
    if (n === undefined) {
      if (seen.size > 200_000) seen.clear();
      seen.set(key, (n = normaliseTelephoneNumber(value, type, region)));
    }
    return n;
  };
  const numbers: string[] = [];
  const types: number[] = [];
  const comments: (string | null)[] = [];
  const invalidRows: InvalidRow[] = [];
  let invalid = 0;
  const reject = (row: number, value: string, message: string) => {
    invalid++;
    if (invalidRows.length < MAX_REPORTED) invalidRows.push({ Row: row, Value: value, Message: message });
  };
  let row = 0;
  let skip = choice.header;
  for (const batch of pass()) {
    for (const cells of batch) {
      if (skip) {
        skip = false;
        continue;
      }
      row++;
      const value = (cells[choice.column] ?? '').trim();
      const typeCell = typeColumn >= 0 ? (cells[typeColumn] ?? '').trim() : '';
      const type = typeCell === '' ? job.type : typeCell.toLowerCase() === 'equal' ? 'Equal' : typeCell.toLowerCase() === 'startwith' ? 'StartWith' : undefined;
      if (!type) {
        reject(row, value, `Type must be Equal or StartWith, not '${typeCell}'`);
        continue;
      }
      const comment = commentColumn >= 0 ? (cells[commentColumn] ?? '') : '';
      if (comment.length > MAX_COMMENT_LENGTH) {
        reject(row, value, `Comment is longer than ${MAX_COMMENT_LENGTH} characters`);
        continue;
      }
      const n = normalise(value, type);
      if (!n.ok) {
        reject(row, value, n.message);
        continue;
      }
      numbers.push(n.value);
      types.push(type === 'StartWith' ? 1 : 0);
      comments.push(comment === '' ? null : comment);
    }
    send({ type: 'progress', processed: row });
  }
  const packed = Uint8Array.from(types);
  send({ type: 'items', numbers: JSON.stringify(numbers), types: packed, comments: JSON.stringify(comments), invalid, invalidRows }, [packed.buffer]);
}

run().then(
  () => port.close(),
  (err: unknown) => {
    if (err instanceof FileError) send({ type: 'failed', status: err.status, message: err.message });
    else if (err instanceof ApiError) send({ type: 'failed', status: 400, message: err.message });
    else throw err;
    port.close();
  },
);
