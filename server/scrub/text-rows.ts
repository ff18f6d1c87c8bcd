/**
 * Rows of a delimited text file (CSV/TSV/TXT, docs/optout-api.md#lists encodings) read in chunks, never the whole file:
 * an incremental RFC 4180 reader. A quoted cell may hold delimiters, doubled quotes and line breaks; a quote
 * that does not start a cell is an ordinary character; text after a closing quote other than the delimiter or
 * a line break is kept literally (one odd cell never swallows the lines after it).
 */
import { isAscii } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { detectDelimiter, ImportFileError } from '../optout/import-parse.ts';

const CHUNK_BYTES = 1 << 20;
/** Rows per batch of a quote-free text. */
const PLAIN_BATCH = 2_000;
/** A single row may not be longer than this (a quote never closed would otherwise swallow the file). */
const MAX_ROW_CHARS = 16 * 1024 * 1024;

/** The decoder of a file by its first bytes: UTF-16 LE/BE with BOM, else strict UTF-8 (BOM dropped). */
function decoderFor(head: Uint8Array): { decoder: TextDecoder; skip: number } {
  if (head[0] === 0xff && head[1] === 0xfe) return { decoder: new TextDecoder('utf-16le'), skip: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { decoder: new TextDecoder('utf-16be'), skip: 2 };
  // A UTF-8 BOM is skipped here (not by the decoder) so that the ASCII text after it takes the fast path.
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { decoder: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }), skip: 3 };
  return { decoder: new TextDecoder('utf-8', { fatal: true }), skip: 0 };
}

/**
 * The decoded text of a file, chunk by chunk (about 1 MiB each); invalid UTF-8 → 400. While every byte so
 * far is ASCII (the decoder then holds nothing back), a chunk of ASCII bytes is read as Latin-1 — the same
 * characters, several times faster than the streaming UTF-8 decoder.
 */
export function* textChunks(filePath: string): Generator<string> {
  const fd = openSync(filePath, 'r');
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    let first = true;
    let decoding: { decoder: TextDecoder; skip: number } | undefined;
    let ascii = true;
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (first) decoding = decoderFor(buffer.subarray(0, n));
      const bytes = buffer.subarray(first ? decoding!.skip : 0, n);
      first = false;
      ascii &&= decoding!.decoder.encoding === 'utf-8' && isAscii(bytes);
      if (ascii) {
        if (n === 0) return;
        yield bytes.toString('latin1');
        continue;
      }
      try {
        yield decoding!.decoder.decode(bytes, { stream: n > 0 });
      } catch {
        throw new ImportFileError(400, 'The text file is not valid UTF-8 (save it as UTF-8, or UTF-16 with a byte-order mark)');
      }
      if (n === 0) return;
    }
  } finally {
    closeSync(fd);
  }
}

const QUOTE = 34;
const CR = 13;
const LF = 10;

/**
 * Reads complete records of `text` from `pos`; returns where the unread rest starts. Without `eof`, a record
 * that may continue in the next chunk is left unread.
 */
function readRecords(text: string, pos: number, delimiter: number, eof: boolean, out: string[][]): number {
  const n = text.length;
  while (pos < n) {
    const cells: string[] = [];
    let i = pos;
    let complete: boolean;
    for (;;) {
      if (text.charCodeAt(i) === QUOTE) {
        let cell = '';
        let from = i + 1;
        let closed = -1;
        for (;;) {
          const q = text.indexOf('"', from);
          if (q < 0) break;
          if (q + 1 >= n && !eof) break; // a doubled quote may continue in the next chunk
          cell += text.slice(from, q);
          if (text.charCodeAt(q + 1) === QUOTE) {
            cell += '"';
            from = q + 2;
            continue;
          }
          closed = q + 1;
          break;
        }
        if (closed < 0) {
          if (!eof) return pos;
          // Never closed: the rest of the line, quote included, taken literally.
          let e = i;
          while (e < n && text.charCodeAt(e) !== LF && text.charCodeAt(e) !== CR && text.charCodeAt(e) !== delimiter) e++;
          cell = text.slice(i, e);
          closed = e;
        }
        i = closed;
        // Text after the closing quote up to the delimiter or the line's end is kept as written.
        let e = i;
        while (e < n && text.charCodeAt(e) !== LF && text.charCodeAt(e) !== CR && text.charCodeAt(e) !== delimiter) e++;
        if (e > i) cell += text.slice(i, e);
        i = e;
        cells.push(cell);
      } else {
        let e = i;
        while (e < n) {
          const c = text.charCodeAt(e);
          if (c === LF || c === CR || c === delimiter) break;
          e++;
        }
        cells.push(text.slice(i, e));
        i = e;
      }
      if (i >= n) {
        if (!eof) return pos;
        complete = true;
        break;
      }
      const c = text.charCodeAt(i);
      if (c === delimiter) {
        i++;
        if (i >= n && eof) {
          cells.push('');
          complete = true;
          break;
        }
        continue;
      }
      // A line break ends the record (CRLF, LF or CR; a CR at a chunk's end leaves its LF as a blank line).
      i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      complete = true;
      break;
    }
    if (!complete) return pos;
    out.push(cells);
    pos = i;
  }
  return pos;
}

/**
 * Records of a text without any quote, from `from`, at most `max` of them: lines (LF, a CR before it dropped;
 * a text with CRs and no LF at all is split on CR) cut into cells by the delimiter, both found with indexOf
 * and sliced out of the text — no array of lines, no garbage beyond the cells. Returns where the unread
 * rest starts (without `eof`, the last line may continue in the next chunk and is left unread).
 */
function plainRecords(text: string, delimiter: string, separator: string, from: number, eof: boolean, out: string[][], max: number): number {
  const n = text.length;
  const lf = separator === '\n';
  let next = text.indexOf(delimiter, from); // the next delimiter at or after `from` (-1: none left)
  while (out.length < max) {
    let end = text.indexOf(separator, from);
    if (end < 0) {
      if (!eof || from >= n) return from;
      end = n;
    }
    const lineEnd = lf && end > from && text.charCodeAt(end - 1) === CR ? end - 1 : end;
    const cells: string[] = [];
    let start = from;
    while (next >= 0 && next < lineEnd) {
      cells.push(text.slice(start, next));
      start = next + 1;
      next = text.indexOf(delimiter, start);
    }
    cells.push(text.slice(start, lineEnd));
    out.push(cells);
    from = end + 1;
    if (next >= 0 && next < from) next = text.indexOf(delimiter, from);
  }
  return from;
}

const BLANK = /^\s*$/;

/** True when every cell of a row is blank (such rows are skipped and not counted, docs/optout-api.md#lists). */
export const isBlankRow = (cells: readonly string[]) => cells.every((c) => BLANK.test(c));

/**
 * The rows of a text file in batches, read chunk by chunk. `tab` forces the tab delimiter (.tsv); otherwise
 * it is detected from the first non-blank line. Blank rows are included (the caller skips them).
 */
export function* textRowBatches(filePath: string, tab: boolean): Generator<string[][]> {
  let rest = '';
  let delimiter = tab ? 9 : -1;
  let done = false;
  const chunks = textChunks(filePath);
  while (!done) {
    const next = chunks.next();
    done = next.done === true;
    const text = rest + (next.value ?? '');
    if (delimiter < 0 && (/\S/.test(text) || done)) delimiter = detectDelimiter(text).charCodeAt(0);
    if (delimiter < 0) {
      rest = text;
      continue;
    }
    let pos: number;
    if (text.includes('"')) {
      const rows: string[][] = [];
      pos = readRecords(text, 0, delimiter, done, rows);
      if (rows.length > 0) yield rows;
    } else {
      // Small batches: a batch's rows are garbage once the caller is done with it, before they age.
      const separator = text.includes('\r') && !text.includes('\n') ? '\r' : '\n';
      pos = 0;
      for (;;) {
        const rows: string[][] = [];
        pos = plainRecords(text, String.fromCharCode(delimiter), separator, pos, done, rows, PLAIN_BATCH);
        if (rows.length > 0) yield rows;
        if (rows.length < PLAIN_BATCH) break;
      }
    }
    rest = text.slice(pos);
    if (rest.length > MAX_ROW_CHARS) throw new ImportFileError(400, 'A row of the file is longer than 16 MiB (a quote that is never closed?)');
  }
}

/**
 * The number of non-blank rows of a text file, read chunk by chunk: lines of quote-free text are tested
 * without being split into cells (a line is blank when it holds only white space and delimiters).
 */
export function countTextRows(filePath: string, tab: boolean): number {
  let count = 0;
  let rest = '';
  let delimiter = tab ? '\t' : '';
  let contentful: RegExp | undefined;
  let done = false;
  const chunks = textChunks(filePath);
  while (!done) {
    const next = chunks.next();
    done = next.done === true;
    const text = rest + (next.value ?? '');
    if (delimiter === '' && (/\S/.test(text) || done)) delimiter = detectDelimiter(text);
    if (delimiter === '') {
      rest = text;
      continue;
    }
    contentful ??= new RegExp(`[^\\s${delimiter === '\t' ? '\\t' : delimiter}]`);
    if (text.includes('"')) {
      const rows: string[][] = [];
      const pos = readRecords(text, 0, delimiter.charCodeAt(0), done, rows);
      for (const r of rows) if (!isBlankRow(r)) count++;
      rest = text.slice(pos);
      if (rest.length > MAX_ROW_CHARS) throw new ImportFileError(400, 'A row of the file is longer than 16 MiB (a quote that is never closed?)');
      continue;
    }
    // Line by line without splitting: a line whose first character is visible ASCII other than the
    // delimiter has content; any other is tested whole.
    const separator = text.includes('\r') && !text.includes('\n') ? '\r' : '\n';
    const d = delimiter.charCodeAt(0);
    let from = 0;
    for (;;) {
      let end = text.indexOf(separator, from);
      if (end < 0) {
        if (!done) break;
        end = text.length;
      }
      const c = text.charCodeAt(from);
      if (c > 32 && c < 127 && c !== d) count++;
      else if (end > from && contentful.test(text.slice(from, end))) count++;
      from = end + 1;
      if (from > text.length) break;
    }
    rest = done ? '' : text.slice(from);
  }
  return count;
}
