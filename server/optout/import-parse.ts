import { parse as parseCsv } from 'csv-parse/sync';
import { unguardCell } from './csv-cell.ts';
import type { EntryKind } from './entries.ts';
import { checkDomain, checkEmail, type Checked } from './normalise.ts';

/**
 * Reading an opt-out import file (CONTRACT §5) into the values of its one relevant column. Pure functions:
 * they run inside the import worker, never on the main thread, and throw ImportFileError for a bad file.
 * (.xlsx: import-xlsx.ts, loaded only for workbooks.)
 */
export class ImportFileError extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
    this.name = 'ImportFileError';
  }
}

const HEADER_NAMES = new Set(['domain', 'emailaddress', 'email']);
const BLANK = /^\s*$/;

/** The column a first row names as a header (`domain`, `emailAddress`, `email`, any case), or -1. */
export function headerColumn(cells: readonly string[]): number {
  return cells.findIndex((c) => HEADER_NAMES.has(c.trim().toLowerCase()));
}

/** Text of a file: UTF-8 with or without BOM, UTF-16 LE/BE with BOM; invalid UTF-8 → 400. */
export function decodeText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ImportFileError(400, 'The text file is not valid UTF-8 (save it as UTF-8, or UTF-16 with a byte-order mark)');
  }
}

/** The delimiter of a text file: the most frequent of `,` `;` tab in its first non-blank line (default `,`). */
export function detectDelimiter(text: string): string {
  const firstLine = /[^\r\n]*\S[^\r\n]*/.exec(text)?.[0] ?? '';
  let best = ',';
  let bestCount = 0;
  for (const d of [',', ';', '\t']) {
    const count = firstLine.split(d).length - 1;
    if (count > bestCount) [best, bestCount] = [d, count];
  }
  return best;
}

export const tooManyRows = (maxRows: number) =>
  new ImportFileError(400, `The file has more than ${maxRows.toLocaleString('en-US')} data rows; split it into smaller files`);

/** Values of the chosen column of rows (header row recognised, blank rows skipped, export guard undone). */
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
}

/** Rows of a text file without any quote: split lines and cells directly (RFC 4180 has nothing to unquote). */
function* plainRows(text: string, delimiter: string): Generator<string[]> {
  const eol = /\r\n|\n|\r/g;
  let start = 0;
  while (start <= text.length) {
    const m = eol.exec(text);
    const end = m ? m.index : text.length;
    const line = text.slice(start, end);
    yield line.includes(delimiter) ? line.split(delimiter) : [line];
    if (!m) break;
    start = eol.lastIndex;
  }
}

/** Values of a .csv/.txt file's relevant column, produced lazily (the row limit is checked as they come). */
export function readTextValues(bytes: Uint8Array, maxRows: number): Iterable<string> {
  const text = decodeText(bytes);
  const delimiter = detectDelimiter(text);
  if (!text.includes('"')) return columnValues(plainRows(text, delimiter), maxRows);
  let rows: string[][];
  let kept = 0;
  try {
    rows = parseCsv(text, {
      delimiter,
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: false,
      // Blank records are dropped as they come, and the row limit is enforced before memory grows.
      on_record: (record: string[]) => {
        if (record.every((c) => BLANK.test(c))) return null;
        if (++kept > maxRows + 1) throw tooManyRows(maxRows);
        return record;
      },
    }) as string[][];
  } catch (err) {
    if (err instanceof ImportFileError) throw err;
    throw new ImportFileError(400, `The CSV file is malformed: ${(err as Error).message}`);
  }
  return columnValues(rows, maxRows);
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
