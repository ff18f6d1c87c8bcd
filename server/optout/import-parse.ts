import { parse as parseCsv } from 'csv-parse/sync';
import XLSX from 'xlsx';
import { unguardCell } from './csv-cell.ts';
import type { EntryKind } from './entries.ts';
import { checkDomain, checkEmail, type Checked } from './normalise.ts';

/**
 * Reading an opt-out import file (CONTRACT §5) into the values of its one relevant column. Pure functions:
 * they run inside the import worker, never on the main thread, and throw ImportFileError for a bad file.
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

const tooManyRows = (maxRows: number) =>
  new ImportFileError(400, `The file has more than ${maxRows.toLocaleString('en-US')} data rows; split it into smaller files`);

/** Values of the chosen column of rows (header row recognised, blank rows skipped, export guard undone). */
function columnValues(rows: Iterable<readonly string[]>, maxRows: number): string[] {
  const values: string[] = [];
  let column = -2; // -2: first non-blank row not seen yet
  for (const cells of rows) {
    if (cells.every((c) => BLANK.test(c))) continue;
    if (column === -2) {
      column = headerColumn(cells);
      if (column >= 0) continue;
      column = 0;
    }
    if (values.length === maxRows) throw tooManyRows(maxRows);
    values.push(unguardCell(cells[column] ?? ''));
  }
  return values;
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

/** Values of a .csv/.txt file's relevant column. */
export function readTextValues(bytes: Uint8Array, maxRows: number): string[] {
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

/** Values of an .xlsx file's first sheet's relevant column. */
export function readXlsxValues(bytes: Uint8Array, maxRows: number): string[] {
  let sheet: XLSX.WorkSheet | undefined;
  try {
    const book = XLSX.read(bytes, {
      type: 'array',
      dense: true,
      sheets: 0,
      sheetRows: maxRows + 2,
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
      cellDates: false,
    });
    sheet = book.Sheets[book.SheetNames[0] ?? ''];
  } catch (err) {
    throw new ImportFileError(400, `The .xlsx file cannot be read as an Excel workbook: ${(err as Error).message}`);
  }
  if (!sheet) throw new ImportFileError(400, 'The .xlsx file has no worksheet');
  const full = sheet['!fullref'] ?? sheet['!ref'];
  if (full && XLSX.utils.decode_range(full).e.r + 1 > maxRows + 1) throw tooManyRows(maxRows);
  const rows = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: false, blankrows: false, defval: '' });
  return columnValues(
    rows.map((r) => r.map((c) => (c == null ? '' : String(c)))),
    maxRows,
  );
}

export interface ValidatedValues {
  /** Normalised values, sorted (SQLite's BINARY order for ASCII), duplicates kept. */
  valid: string[];
  invalid: number;
}

/** Validates and normalises every value for the list kind. */
export function validateValues(values: string[], kind: EntryKind): ValidatedValues {
  const valid: string[] = [];
  let invalid = 0;
  const domains = new Map<string, Checked>();
  for (const v of values) {
    if (domains.size > 100_000) domains.clear();
    const r = kind === 'emails' ? checkEmail(v, domains) : checkDomain(v);
    if (r.ok) valid.push(r.value);
    else invalid++;
  }
  valid.sort();
  return { valid, invalid };
}
