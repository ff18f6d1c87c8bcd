import { decodeText, type TextEncodingName } from '../../common/files/encoding.ts';
import { FileError, tooManyRows } from '../files/file-error.ts';
import { openTextFile, textRows } from '../files/text-rows.ts';
import { unguardCell } from '../lib/csv-cell.ts';
import type { EntryKind } from './entries.ts';
import { MAX_INVALID_ITEMS, type InvalidItem } from './import-protocol.ts';
import { checkDomain, checkEmail, type Checked } from '../email/normalise.ts';

/**
 * Reading an opt-out import file (docs/optout-api.md#import, docs/files.md) into the values of its one relevant
 * column: the rows come from the one intake (server/files/), the header, blank-row and guard rules are the
 * import's. They run inside the workers (and, for a small text file, on the main thread: import-service.ts)
 * and throw FileError for a bad file.
 */
const HEADER_NAMES = new Set(['domain', 'emailaddress', 'email']);
const BLANK = /^\s*$/;

/** The column a first row names as a header (`domain`, `emailAddress`, `email`, any case), or -1. */
export function headerColumn(cells: readonly string[]): number {
  return cells.findIndex((c) => HEADER_NAMES.has(c.trim().toLowerCase()));
}

/**
 * Values of the chosen column of rows (header row recognised, blank rows skipped, export guard undone). A file
 * without a data row (empty, blank lines only, or a header alone) → 400 (docs/files.md#errors).
 */
export function* columnValues(rows: Iterable<readonly string[]>, maxRows: number): Generator<string> {
  let count = 0;
  let column = -2; // -2: first non-blank row not seen yet
  for (const cells of rows) {
    if (cells.every((c) => BLANK.test(c))) continue;
    if (column === -2) {
      column = headerColumn(cells);
      if (column >= 0) continue;
      column = 0;
    }
    if (++count > maxRows) throw tooManyRows(maxRows);
    yield unguardCell(cells[column] ?? '');
  }
  if (count === 0) throw new FileError(400, column === -2 ? 'The file is empty: it has no rows' : 'The file has a header but no data rows');
}

/** The values of an import file and the encoding it was read in (null: a workbook). */
export interface FileValues {
  encoding: TextEncodingName | null;
  values: Iterable<string>;
}

/** Flattens batches of rows. */
export function* rowsOf(batches: Iterable<string[][]>): Generator<string[]> {
  for (const batch of batches) yield* batch;
}

/** Values of a small .csv/.tsv/.txt file held in memory, produced lazily (the row limit is checked as they come). */
export function readTextValues(bytes: Uint8Array, maxRows: number, tab = false): FileValues {
  const { text, encoding } = decodeText(bytes);
  return { encoding, values: columnValues(textRows(text, tab), maxRows) };
}

/** Values of a .csv/.tsv/.txt file on disk, read chunk by chunk (server/files/text-rows.ts). */
export function readTextFileValues(path: string, maxRows: number, tab = false, chunkBytes?: number): FileValues {
  const file = openTextFile(path, tab, chunkBytes);
  return { encoding: file.encoding, values: columnValues(rowsOf(file.batches()), maxRows) };
}

/** The validator of one list kind, returning the stored form or a reason (e-mail domains cached per import). */
export function entryChecker(kind: EntryKind): (raw: string) => Checked {
  if (kind === 'domains') return checkDomain;
  const domains = new Map<string, Checked>();
  return (raw) => {
    if (domains.size > 100_000) domains.clear();
    return checkEmail(raw, domains);
  };
}

/** A file's counts after validation: valid and invalid rows, and the first invalid ones (row, value, reason). */
export interface CheckedCounts {
  valid: number;
  invalid: number;
  invalidItems: InvalidItem[];
}

/** Validates `values` for a list of `kind`, handing the stored forms to `send` in batches of `batchSize`. */
export function checkValues(values: Iterable<string>, kind: EntryKind, batchSize: number, send: (batch: string[]) => void): CheckedCounts {
  const check = entryChecker(kind);
  const invalidItems: InvalidItem[] = [];
  let batch: string[] = [];
  let valid = 0;
  let invalid = 0;
  let row = 0;
  for (const raw of values) {
    row++;
    const r = check(raw);
    if (!r.ok) {
      invalid++;
      if (invalidItems.length < MAX_INVALID_ITEMS) invalidItems.push({ row, value: raw, reason: r.reason });
      continue;
    }
    valid++;
    batch.push(r.value);
    if (batch.length === batchSize) {
      send(batch);
      batch = [];
    }
  }
  if (batch.length > 0) send(batch);
  return { valid, invalid, invalidItems };
}
