/** Bulk import of blacklist numbers from pasted text or a .txt/.csv file: parsing, and calls of at most 10,000 items. */
import { request } from '../api/client.ts';
import { formatNumber, t } from '../i18n/index.ts';

export type BlacklistType = 'Equal' | 'StartWith';

/** One item as `Controller.Import` takes it, and the line of the text it came from. */
export interface ParsedItem {
  TelephoneNumber: string;
  Type: BlacklistType;
  Comment?: string;
  line: number;
}

/** A refused item of the summed result: the line of the text, the number as written, the server's reason. */
export interface InvalidRow {
  line: number;
  value: string;
  message: string;
}

/** The answer of all calls together. */
export interface SummedImport {
  Added: number;
  Duplicates: number;
  Invalid: number;
  /** The refused items the server listed (its first 100 per call). */
  invalidRows: InvalidRow[];
  calls: number;
}

/** Items per `Controller.Import` call (the server's limit, docs/cati-api.md#blacklist). */
export const IMPORT_CHUNK = 10000;

/** Splits one CSV line on `delimiter`, honouring "quoted ""cells"" with delimiters". */
export function splitCsvLine(line: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (c === delimiter) {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  cells.push(quoted ? cell : cell.trim());
  return cells;
}

const isType = (c: string | undefined): c is BlacklistType => c === 'Equal' || c === 'StartWith';
const HEADER = { number: /^(telephone_?number|number|phone|telephone)$/i, type: /^type$/i, comment: /^(comment|note|notes)$/i };

/**
 * Pasted text or a .txt/.csv file → import items. Delimiter `,` `;` or tab (the first one the first line holds).
 * With a header row (TelephoneNumber/Number/Phone, Type, Comment) its columns are used; without one the first
 * cell is the number, then an optional Equal/StartWith, then the comment. Blank lines are skipped.
 */
export function parseNumberList(text: string, type: BlacklistType): ParsedItem[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const firstLine = lines.find((l) => l.trim()) ?? '';
  const delimiter = ['\t', ';', ','].find((d) => firstLine.includes(d)) ?? ',';
  let columns: { number: number; type: number; comment: number } | null = null;
  const items: ParsedItem[] = [];
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    const cells = splitCsvLine(line, delimiter);
    if (items.length === 0 && !columns && /^[a-z _]+$/i.test(cells[0] ?? '')) {
      const find = (re: RegExp) => cells.findIndex((c) => re.test(c));
      columns = { number: Math.max(0, find(HEADER.number)), type: find(HEADER.type), comment: find(HEADER.comment) };
      return;
    }
    const number = cells[columns ? columns.number : 0] ?? '';
    if (!number) return;
    let rowType: string | undefined;
    let comment: string | undefined;
    if (columns) {
      rowType = columns.type >= 0 ? cells[columns.type] : undefined;
      comment = columns.comment >= 0 ? cells[columns.comment] : undefined;
    } else if (isType(cells[1])) [rowType, comment] = [cells[1], cells[2]];
    else comment = cells[1];
    const item: ParsedItem = { TelephoneNumber: number, Type: isType(rowType) ? rowType : type, line: index + 1 };
    if (comment) item.Comment = comment;
    items.push(item);
  });
  return items;
}

interface ImportAnswer {
  Added: number;
  Duplicates: number;
  Invalid: number;
  InvalidItems: { Index: number; Value: string | null; Message: string }[];
}

/**
 * Imports `items` in calls of at most 10,000 (each call is all-or-nothing on the server), one after the other,
 * reporting the items done after each call; answers the summed result. A failed call stops the import: the
 * error says how many items were stored before it.
 */
export async function importInChunks(path: string, items: ParsedItem[], onProgress: (done: number, total: number) => void): Promise<SummedImport> {
  const sum: SummedImport = { Added: 0, Duplicates: 0, Invalid: 0, invalidRows: [], calls: 0 };
  onProgress(0, items.length);
  for (let start = 0; start < items.length; start += IMPORT_CHUNK) {
    const chunk = items.slice(start, start + IMPORT_CHUNK);
    let answer: ImportAnswer;
    try {
      answer = await request<ImportAnswer>('POST', path, { body: { BlackListItems: chunk.map(({ line: _line, ...item }) => item) } });
    } catch (err) {
      if (start === 0) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw new Error(t('blacklist.import.partly', { message, start: formatNumber(start), total: formatNumber(items.length), added: formatNumber(sum.Added) }), { cause: err });
    }
    sum.Added += answer.Added;
    sum.Duplicates += answer.Duplicates;
    sum.Invalid += answer.Invalid;
    sum.calls++;
    for (const bad of answer.InvalidItems) {
      sum.invalidRows.push({ line: chunk[bad.Index]?.line ?? start + bad.Index + 1, value: bad.Value ?? '', message: bad.Message });
    }
    onProgress(Math.min(start + IMPORT_CHUNK, items.length), items.length);
  }
  return sum;
}
