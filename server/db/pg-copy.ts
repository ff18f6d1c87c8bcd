/**
 * COPY FROM STDIN for bulk imports on PostgreSQL (pg-copy-streams): rows are written in COPY's text format,
 * a few hundred to a chunk, with backpressure, on the connection given (the caller's transaction's or one of
 * its own).
 */
import { assertPlainIdentifiers } from './identifiers.ts';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

const ROWS_PER_CHUNK = 500;

const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;
const escapeSpecial = (c: string) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r');

/** One value in COPY text format: `\N` for null, backslash escapes for \ tab newline CR, bytea as \\x hex. */
export function copyText(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return SPECIAL.test(value) ? value.replace(SPECIALS, escapeSpecial) : value;
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (Buffer.isBuffer(value)) return `\\\\x${value.toString('hex')}`;
  return String(value).replace(SPECIALS, escapeSpecial);
}

/** One row as a line of COPY text. */
function line(row: readonly unknown[], width: number): string {
  if (row.length !== width) throw new Error(`copyRows: a row has ${row.length} values for ${width} columns`);
  let text = copyText(row[0]);
  for (let i = 1; i < width; i++) text += `\t${copyText(row[i])}`;
  return `${text}\n`;
}

/**
 * The rows as chunks of COPY text. A synchronous source is read with for...of: for await costs a promise per row
 * (profiled: a sixth of the Node side of a 10,000-call ingest batch went to it and the per-row array of texts).
 */
async function* lines(rows: Iterable<readonly unknown[]> | AsyncIterable<readonly unknown[]>, width: number): AsyncGenerator<string> {
  let chunk = '';
  let n = 0;
  /** Adds a row; answers the chunk when it is full. */
  const add = (row: readonly unknown[]): string | undefined => {
    chunk += line(row, width);
    if (++n < ROWS_PER_CHUNK) return undefined;
    const full = chunk;
    chunk = '';
    n = 0;
    return full;
  };
  if (Symbol.iterator in rows) {
    for (const row of rows) {
      const full = add(row);
      if (full) yield full;
    }
  } else {
    for await (const row of rows) {
      const full = add(row);
      if (full) yield full;
    }
  }
  if (chunk) yield chunk;
}

/**
 * Copies `rows` into `table (columns)` on `client`; resolves to the number of rows copied. `whileCopying` runs
 * once every row has been sent, while the database is still writing them (it may throw: the copy then fails).
 */
export async function copyRowsOn(
  client: pg.ClientBase,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly unknown[]> | AsyncIterable<readonly unknown[]>,
  whileCopying?: () => void,
): Promise<number> {
  assertPlainIdentifiers([table, ...columns]);
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  const source = Readable.from(lines(rows, columns.length));
  let ran = false;
  let failed: unknown;
  const run = () => {
    if (ran) return;
    ran = true;
    try {
      whileCopying?.();
    } catch (err) {
      failed = err;
    }
  };
  // After 'end' the pipeline ends the COPY (CopyDone is written); setImmediate runs after that. Should the database
  // answer first (a few rows), it runs before the copy resolves all the same; never after a failed copy.
  if (whileCopying) source.once('end', () => setImmediate(run));
  try {
    await pipeline(source, stream);
  } catch (err) {
    ran = true;
    throw err;
  }
  run();
  if (failed !== undefined) throw failed;
  return stream.rowCount;
}

