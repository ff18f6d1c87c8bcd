import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { unguardCell } from '../lib/csv-cell.ts';
import type { EntryKind } from './entries.ts';
import { MAX_INVALID_ITEMS, type InvalidItem } from './import-protocol.ts';
import { checkDomain, checkEmail, type Checked } from '../email/normalise.ts';

/**
 * Reading an opt-out import file (CONTRACT §5) into the values of its one relevant column. Pure functions:
 * they run inside the parse worker (and, for a small text file, on the main thread: import-service.ts) and
 * throw ImportFileError for a bad file. (.xlsx: import-xlsx.ts, loaded only for workbooks, only in the worker.)
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
    throw notUtf8();
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

const CR = 13;
const LF = 10;

/**
 * Index of the first line break (CR or LF) at or after `from`, or the text's length; with a delimiter's
 * char code, the first delimiter before that break too. One pass over the cell only (indexOf would scan to
 * the end of a file that has no CR, or no further delimiter, on every call).
 */
function cellEnd(text: string, from: number, delimiter = -1): number {
  let i = from;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || c === CR || c === delimiter) break;
  }
  return i;
}

/** Index just past the line break at `at` (CRLF, LF or CR), or `at` at the end of the text. */
function pastLineBreak(text: string, at: number): number {
  if (text[at] === '\r') return text[at + 1] === '\n' ? at + 2 : at + 1;
  return text[at] === '\n' ? at + 1 : at;
}

/**
 * One RFC 4180 record starting at `pos`: its cells and where the next record starts, or null when a quoted
 * cell is malformed (never closed, or its closing quote is followed by something other than the delimiter or
 * a line break). A quoted cell may hold delimiters, doubled quotes and line breaks; a quote inside an
 * unquoted cell is an ordinary character.
 */
function quotedRecord(text: string, pos: number, delimiter: string): { cells: string[]; next: number } | null {
  const cells: string[] = [];
  for (;;) {
    let cell: string;
    if (text[pos] === '"') {
      cell = '';
      let from = pos + 1;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q < 0) return null;
        cell += text.slice(from, q);
        if (text[q + 1] === '"') {
          cell += '"';
          from = q + 2;
          continue;
        }
        pos = q + 1;
        break;
      }
      const c = text[pos];
      if (pos < text.length && c !== delimiter && c !== '\r' && c !== '\n') return null;
    } else {
      const end = cellEnd(text, pos, delimiter.charCodeAt(0));
      cell = text.slice(pos, end);
      pos = end;
    }
    cells.push(cell);
    if (text[pos] === delimiter) {
      pos++;
      continue;
    }
    return { cells, next: pastLineBreak(text, pos) };
  }
}

/**
 * Rows of a text file with quotes: RFC 4180 records; a record with a malformed quoted cell is not an error
 * for the whole file but one row of its own line taken literally (so a stray quote in one address, as in
 * `"test"@example.com`, makes that one row invalid and never swallows the lines after it).
 */
function* quotedRows(text: string, delimiter: string): Generator<string[]> {
  let pos = 0;
  while (pos < text.length) {
    const record = quotedRecord(text, pos, delimiter);
    if (record) {
      yield record.cells;
      pos = record.next;
      continue;
    }
    const end = cellEnd(text, pos);
    yield text.slice(pos, end).split(delimiter);
    pos = pastLineBreak(text, end);
  }
}

/** Values of a .csv/.txt file's relevant column, produced lazily (the row limit is checked as they come). */
export function readTextValues(bytes: Uint8Array, maxRows: number): Iterable<string> {
  const text = decodeText(bytes);
  const delimiter = detectDelimiter(text);
  return columnValues(text.includes('"') ? quotedRows(text, delimiter) : plainRows(text, delimiter), maxRows);
}

/** Bytes a text file is read in when it is read in slices. */
const SLICE_BYTES = 1 << 20;

/** The file's bytes in slices of `size` (the last one shorter), read on demand; the file is closed when iteration ends. */
function* fileSlices(path: string, size: number): Generator<Uint8Array> {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(size);
    for (let n = readSync(fd, buffer, 0, size, null); n > 0; n = readSync(fd, buffer, 0, size, null)) yield buffer.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

const notUtf8 = () => new ImportFileError(400, 'The text file is not valid UTF-8 (save it as UTF-8, or UTF-16 with a byte-order mark)');

/** Text of a UTF-8 file slice by slice (a byte-order mark dropped; invalid UTF-8 → 400). */
function* utf8Text(path: string, size: number): Generator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  try {
    for (const slice of fileSlices(path, size)) yield decoder.decode(slice, { stream: true });
    yield decoder.decode();
  } catch (err) {
    if (err instanceof TypeError) throw notUtf8();
    throw err;
  }
}

/** Lines of text that arrives in pieces, split exactly as plainRows splits the whole text (CRLF, LF or CR). */
function* linesOf(pieces: Iterable<string>): Generator<string> {
  const eol = /\r\n|\n|\r/g;
  let carry = '';
  for (const piece of pieces) {
    const text = carry + piece;
    let start = 0;
    eol.lastIndex = 0;
    for (let m = eol.exec(text); m && !(m[0] === '\r' && m.index === text.length - 1); m = eol.exec(text)) {
      yield text.slice(start, m.index); // a CR at the very end waits: the next piece may start with its LF
      start = eol.lastIndex;
    }
    carry = text.slice(start);
  }
  yield* carry.split(eol);
}

/** Rows of lines without any quote, the delimiter taken from the first non-blank line (as detectDelimiter). */
function* plainLineRows(lines: Iterable<string>): Generator<string[]> {
  let delimiter: string | undefined;
  for (const line of lines) {
    if (delimiter === undefined) {
      if (!/\S/.test(line)) {
        yield [line];
        continue;
      }
      delimiter = detectDelimiter(line);
    }
    yield line.includes(delimiter) ? line.split(delimiter) : [line];
  }
}

/**
 * Values of a .csv/.txt file on disk, as readTextValues reads them. A UTF-8 file without a quote character is
 * read twice in 1 MiB slices (once to check it is UTF-8 and holds no quote, once for its values), so neither
 * its bytes nor its text are ever whole in memory; a UTF-16 file, or one with quotes (an RFC 4180 cell may span
 * lines), is read whole.
 */
export function readTextFileValues(path: string, maxRows: number, sliceBytes = SLICE_BYTES): Iterable<string> {
  const head = fileSlices(path, 2);
  const [b0, b1] = head.next().value ?? [];
  head.return(undefined); // closes the file
  const utf16 = (b0 === 0xff && b1 === 0xfe) || (b0 === 0xfe && b1 === 0xff);
  let quoted = false;
  const check = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const decodes = (slice?: Uint8Array) => {
    try {
      check.decode(slice, { stream: slice !== undefined });
    } catch {
      throw notUtf8();
    }
  };
  for (const slice of utf16 ? [] : fileSlices(path, sliceBytes)) {
    if ((quoted ||= slice.includes(0x22))) break;
    decodes(slice); // every byte checked before the first value goes out, as when the text is decoded whole
  }
  if (utf16 || quoted) return readTextValues(readFileSync(path), maxRows);
  decodes();
  return columnValues(plainLineRows(linesOf(utf8Text(path, sliceBytes))), maxRows);
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
