/**
 * Rows of a delimited text file (CSV/TSV/TXT, docs/files.md) read in chunks, never the whole file: its
 * encoding (text-source.ts), its delimiter (the rule of common/files/delimiter.ts, from its first chunk) and
 * its records (the one RFC 4180 reader, common/files/csv-records.ts).
 */
import { isBlankRecord, MAX_RECORD_CHARS, readRecords } from '../../common/files/csv-records.ts';
import { chooseDelimiter, DELIMITER_TEXT, type Delimiter } from '../../common/files/delimiter.ts';
import type { TextEncodingName } from '../../common/files/encoding.ts';
import { FileError } from './file-error.ts';
import { CHUNK_BYTES, textChunks, textSource } from './text-source.ts';

/** Records per batch. */
const BATCH = 2_000;

const tooLong = () => new FileError(400, 'A row of the file is longer than 16 MiB (a quote that is never closed?)');

/** A text file opened for reading its rows as often as needed. */
export interface TextFile {
  encoding: TextEncodingName;
  /** Its rows in batches, blank ones included (the caller skips them). */
  batches(): Generator<string[][]>;
  /** The number of its non-blank rows, lines of quote-free text tested without being split into cells. */
  count(): number;
}

/** Opens a text file: its encoding is known at once (one pass over its bytes), its delimiter with its first chunk. */
export function openTextFile(path: string, tab: boolean, chunkBytes = CHUNK_BYTES): TextFile {
  const source = textSource(path, chunkBytes);
  let delimiter: Delimiter | undefined = tab ? '\t' : undefined;
  const pieces = (): Generator<string> => textChunks(path, source, chunkBytes);
  // The rule reads the file's first records: it waits for 64 KiB of text (or the whole file) and for content.
  const delimiterOf: DelimiterOf = (text, done) => {
    if (delimiter === undefined && (done || (text.length >= DELIMITER_TEXT && /\S/.test(text)))) delimiter = chooseDelimiter(text, done);
    return delimiter;
  };
  return { encoding: source.encoding, batches: () => rowBatches(pieces(), delimiterOf), count: () => countRows(pieces(), delimiterOf) };
}

/** The file's delimiter once the text read so far shows it, else undefined (read on). */
type DelimiterOf = (text: string, done: boolean) => Delimiter | undefined;

/**
 * The rows of text that arrives in pieces, in batches yielded as soon as they are read: a batch's rows are
 * garbage once the caller is done with it, before they age (a chunk's rows held at once made the collector
 * most of the time).
 */
function* rowBatches(pieces: Generator<string>, delimiterOf: DelimiterOf): Generator<string[][]> {
  let rest = '';
  let done = false;
  while (!done) {
    const next = pieces.next();
    done = next.done === true;
    const text = rest + (next.value ?? '');
    const d = delimiterOf(text, done);
    let pos = 0;
    if (d !== undefined) {
      const quoted = text.includes('"');
      for (;;) {
        const rows: string[][] = [];
        pos = readRecords(text, pos, d, done, rows, BATCH, undefined, quoted);
        if (rows.length > 0) yield rows;
        if (rows.length < BATCH) break;
      }
    }
    rest = text.slice(pos);
    if (rest.length > MAX_RECORD_CHARS) throw tooLong();
  }
}

/** Counts the non-blank lines of quote-free text from `pos`; answers the count and where the unread rest starts. */
function countPlain(text: string, pos: number, d: number, eof: boolean): { count: number; pos: number } {
  const n = text.length;
  let count = 0;
  let nextLF = text.indexOf('\n', pos);
  let nextCR = text.indexOf('\r', pos);
  while (pos < n) {
    let end: number;
    if (nextLF < 0 && nextCR < 0) {
      if (!eof) break;
      end = n;
    } else end = nextLF < 0 ? nextCR : nextCR < 0 ? nextLF : Math.min(nextLF, nextCR);
    let next = end + 1;
    if (end < n && text.charCodeAt(end) === 13) {
      if (end + 1 >= n && !eof) break;
      if (text.charCodeAt(end + 1) === 10) next = end + 2;
    }
    // A line whose first character is visible ASCII other than the delimiter has content; any other is tested whole.
    const c = text.charCodeAt(pos);
    if (c > 32 && c < 127 && c !== d) count++;
    else if (end > pos && !isBlankLine(text, pos, end, d)) count++;
    pos = Math.min(next, n);
    if (nextLF >= 0 && nextLF < pos) nextLF = text.indexOf('\n', pos);
    if (nextCR >= 0 && nextCR < pos) nextCR = text.indexOf('\r', pos);
  }
  return { count, pos };
}

/** True when text[from, to) holds only white space and delimiters. */
function isBlankLine(text: string, from: number, to: number, d: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === d) continue;
    if (!/\s/.test(text[i]!)) return false;
  }
  return true;
}

function countRows(pieces: Generator<string>, delimiterOf: DelimiterOf): number {
  let count = 0;
  let rest = '';
  let done = false;
  while (!done) {
    const next = pieces.next();
    done = next.done === true;
    const text = rest + (next.value ?? '');
    const d = delimiterOf(text, done);
    let pos = 0;
    if (d !== undefined && text.includes('"')) {
      for (;;) {
        const rows: string[][] = [];
        pos = readRecords(text, pos, d, done, rows, BATCH, undefined, true);
        for (const r of rows) if (!isBlankRecord(r)) count++;
        if (rows.length < BATCH) break;
      }
    } else if (d !== undefined) {
      const r = countPlain(text, 0, d.charCodeAt(0), done);
      count += r.count;
      pos = r.pos;
    }
    rest = text.slice(pos);
    if (rest.length > MAX_RECORD_CHARS) throw tooLong();
  }
  return count;
}

/** Rows of a small text file held in memory (a request's upload): the same encodings, delimiter and records. */
export function textRows(text: string, tab: boolean): string[][] {
  const d = tab ? '\t' : chooseDelimiter(text, true);
  const rows: string[][] = [];
  readRecords(text, 0, d, true, rows);
  return rows;
}
