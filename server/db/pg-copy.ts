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


/** One value in COPY text format: `\N` for null, backslash escapes for \ tab newline CR, bytea as \\x hex. */
export function copyText(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (Buffer.isBuffer(value)) return `\\\\x${value.toString('hex')}`;
  return String(value).replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

async function* lines(rows: Iterable<readonly unknown[]> | AsyncIterable<readonly unknown[]>, width: number): AsyncGenerator<string> {
  let chunk = '';
  let n = 0;
  for await (const row of rows) {
    if (row.length !== width) throw new Error(`copyRows: a row has ${row.length} values for ${width} columns`);
    chunk += `${row.map(copyText).join('\t')}\n`;
    if (++n >= ROWS_PER_CHUNK) {
      yield chunk;
      chunk = '';
      n = 0;
    }
  }
  if (chunk) yield chunk;
}

/** Copies `rows` into `table (columns)` on `client`; resolves to the number of rows copied. */
export async function copyRowsOn(
  client: pg.ClientBase,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly unknown[]> | AsyncIterable<readonly unknown[]>,
): Promise<number> {
  assertPlainIdentifiers([table, ...columns]);
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(lines(rows, columns.length)), stream);
  return stream.rowCount;
}

export { assertPlainIdentifiers } from './identifiers.ts';
