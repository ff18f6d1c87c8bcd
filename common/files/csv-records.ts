/**
 * The one RFC 4180 record reader (docs/files.md#quoting), over a string that may be a file's start or a chunk
 * of it: the server's streaming reader feeds it chunk by chunk, the screens' preview a file's first bytes.
 *
 * A record ends at a line break (CR LF, LF or CR). A cell that starts with `"` is quoted: it may hold the
 * delimiter, doubled quotes and line breaks. A quote inside an unquoted cell is an ordinary character. A
 * record whose quoted cell is malformed (never closed, or its closing quote followed by something other than
 * the delimiter or a line break) is taken literally: its line split at the delimiter, so one stray quote
 * never swallows the lines after it.
 */

/** Characters a quoted cell may span (from its record's start) before its opening quote counts as never closed. */
export const MAX_RECORD_CHARS = 16 * 1024 * 1024;

/** What a read noticed: records taken literally because of a malformed quote. */
export interface RecordStats {
  malformed: number;
}

const QUOTE = 34;
const CR = 13;
const LF = 10;
const NEED_MORE = 0;
const MALFORMED = 1;

/**
 * Reads records of `text` from `pos` into `out` (at most `max`) and answers where the unread rest starts.
 * Without `eof` a record that may continue in the next chunk is left unread. `quoted`: whether the text holds a
 * quote at or after `pos` (a caller reading one text in several calls tells it once; false takes the fast path).
 */
export function readRecords(
  text: string, pos: number, delimiter: string, eof: boolean, out: string[][], max = Infinity, stats?: RecordStats, quoted = text.indexOf('"', pos) >= 0,
): number {
  return quoted ? quotedRecords(text, pos, delimiter, eof, out, max, stats) : plainRecords(text, pos, delimiter, eof, out, max);
}

/** Every record of a whole text (or, `complete` false, of a file's start, its last cut record left out). */
export function parseRecords(text: string, delimiter: string, complete = true): string[][] {
  const out: string[][] = [];
  readRecords(text, 0, delimiter, complete, out);
  return out;
}

/**
 * Records of text without a quote: line ends and delimiters found with indexOf and the cells sliced out, no
 * array of lines. The fast path of every quote-free chunk.
 */
function plainRecords(text: string, pos: number, delimiter: string, eof: boolean, out: string[][], max: number): number {
  const n = text.length;
  let nextD = text.indexOf(delimiter, pos);
  let nextLF = text.indexOf('\n', pos);
  let nextCR = text.indexOf('\r', pos);
  let count = 0;
  while (pos < n && count < max) {
    let end: number;
    if (nextLF < 0 && nextCR < 0) {
      if (!eof) return pos;
      end = n;
    } else end = nextLF < 0 ? nextCR : nextCR < 0 ? nextLF : Math.min(nextLF, nextCR);
    let next = end + 1;
    if (end < n && text.charCodeAt(end) === CR) {
      if (end + 1 >= n && !eof) return pos; // its LF may start the next chunk
      if (text.charCodeAt(end + 1) === LF) next = end + 2;
    }
    const cells: string[] = [];
    let start = pos;
    while (nextD >= 0 && nextD < end) {
      cells.push(text.slice(start, nextD));
      start = nextD + 1;
      nextD = text.indexOf(delimiter, start);
    }
    cells.push(text.slice(start, end));
    out.push(cells);
    count++;
    pos = Math.min(next, n);
    if (nextLF >= 0 && nextLF < pos) nextLF = text.indexOf('\n', pos);
    if (nextCR >= 0 && nextCR < pos) nextCR = text.indexOf('\r', pos);
  }
  return pos;
}

/** Index of the first CR or LF at or after `pos`, or the text's length. */
function lineEnd(text: string, pos: number): number {
  let i = pos;
  for (const n = text.length; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || c === CR) break;
  }
  return i;
}

function quotedRecords(text: string, pos: number, delimiter: string, eof: boolean, out: string[][], max: number, stats?: RecordStats): number {
  const n = text.length;
  const d = delimiter.charCodeAt(0);
  let count = 0;
  while (pos < n && count < max) {
    const r = quotedRecord(text, pos, d, eof);
    if (r === NEED_MORE) return pos;
    if (r === MALFORMED) {
      const end = lineEnd(text, pos);
      if (end >= n && !eof) return pos;
      if (end + 1 >= n && !eof && text.charCodeAt(end) === CR) return pos;
      out.push(text.slice(pos, end).split(delimiter));
      if (stats) stats.malformed++;
      pos = end >= n ? n : text.charCodeAt(end) === CR && text.charCodeAt(end + 1) === LF ? end + 2 : end + 1;
    } else {
      out.push(r.cells);
      pos = r.next;
    }
    count++;
  }
  return pos;
}

/** One record from `pos`: its cells and where the next starts, or NEED_MORE, or MALFORMED. */
function quotedRecord(text: string, pos: number, d: number, eof: boolean): { cells: string[]; next: number } | typeof NEED_MORE | typeof MALFORMED {
  const n = text.length;
  const start = pos;
  const cells: string[] = [];
  for (;;) {
    let cell: string;
    if (text.charCodeAt(pos) === QUOTE) {
      cell = '';
      let from = pos + 1;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q < 0 || q - start > MAX_RECORD_CHARS) return q < 0 && !eof && n - start <= MAX_RECORD_CHARS ? NEED_MORE : MALFORMED;
        if (q + 1 >= n && !eof) return NEED_MORE; // a doubled quote may continue in the next chunk
        cell += text.slice(from, q);
        if (text.charCodeAt(q + 1) === QUOTE) {
          cell += '"';
          from = q + 2;
          continue;
        }
        pos = q + 1;
        break;
      }
      if (pos < n) {
        const c = text.charCodeAt(pos);
        if (c !== d && c !== CR && c !== LF) return MALFORMED;
      }
    } else {
      let e = pos;
      while (e < n) {
        const c = text.charCodeAt(e);
        if (c === LF || c === CR || c === d) break;
        e++;
      }
      cell = text.slice(pos, e);
      pos = e;
    }
    cells.push(cell);
    if (pos >= n) return eof ? { cells, next: n } : NEED_MORE;
    const c = text.charCodeAt(pos);
    if (c === d) {
      pos++;
      continue;
    }
    if (c === CR) {
      if (pos + 1 >= n && !eof) return NEED_MORE;
      return { cells, next: text.charCodeAt(pos + 1) === LF ? pos + 2 : pos + 1 };
    }
    return { cells, next: pos + 1 };
  }
}

/** True when every cell of a record is blank (white space only): such rows are skipped and not counted. */
export function isBlankRecord(cells: readonly string[]): boolean {
  for (const c of cells) if (c.trim() !== '') return false;
  return true;
}
