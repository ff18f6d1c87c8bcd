/**
 * The first rows of a picked CSV/TSV/TXT file (only its first 64 KiB) or small workbook, read in the browser by
 * the server's own rules (common/files: encoding, delimiter, RFC 4180 records, workbook cells; docs/files.md),
 * and the column and header rules of the server (docs/cati-api.md#scrubs; server/scrub/column-rules.ts) so the
 * preview shows the column the scrub will use.
 */

import { isBlankRecord, parseRecords } from '../../../../common/files/csv-records.ts';
import { chooseDelimiter } from '../../../../common/files/delimiter.ts';
import { decodeText } from '../../../../common/files/encoding.ts';
import { cellText, type SheetCell } from '../../../../common/files/xlsx-cell.ts';

export type ScrubTarget = 'cati' | 'optout';

const WORDS: Record<ScrubTarget, RegExp> = { cati: /phone|tel|number/i, optout: /mail/i };
const DATA: Record<ScrubTarget, RegExp> = { cati: /\d/, optout: /@/ };

/** Bytes of a text file the preview reads. */
const PREVIEW_TEXT_BYTES = 65536;
/** Workbooks up to this size get a preview (read whole by SheetJS in the page; larger ones are left to the server). */
const MAX_PREVIEW_XLSX_BYTES = 10 * 1024 * 1024;

/** The first `max` non-blank rows of a workbook's first sheet, or none when it is too large or unreadable. */
async function workbookRows(file: File, max: number): Promise<string[][]> {
  if (file.size > MAX_PREVIEW_XLSX_BYTES) return [];
  try {
    const XLSX = await import('xlsx');
    const book = XLSX.read(new Uint8Array(await file.arrayBuffer()), {
      type: 'array', dense: true, sheets: 0, sheetRows: max * 4, cellFormula: false, cellHTML: false, cellDates: false, cellNF: true, cellText: false,
    });
    const sheet = book.Sheets[book.SheetNames[0] ?? ''];
    if (!sheet) return [];
    const date1904 = Boolean(book.Workbook?.WBProps?.date1904);
    const data = (sheet['!data'] ?? []) as (SheetCell[] | undefined)[];
    const rows = data.map((row) => Array.from(row ?? [], (cell) => cellText(cell, (f) => XLSX.SSF.is_date(f), date1904)));
    return rows.filter((r) => !isBlankRecord(r)).slice(0, max);
  } catch {
    return [];
  }
}

/** The first `max` non-blank rows of a text file or (small) workbook. */
export async function previewRows(file: File, max = 8): Promise<string[][]> {
  if (/\.xlsx$/i.test(file.name)) return workbookRows(file, max);
  const complete = file.size <= PREVIEW_TEXT_BYTES;
  const { text } = decodeText(new Uint8Array(await file.slice(0, PREVIEW_TEXT_BYTES).arrayBuffer()), complete);
  const delimiter = chooseDelimiter(text, complete, file.name);
  return parseRecords(text, delimiter, complete)
    .filter((r) => !isBlankRecord(r))
    .slice(0, max);
}

/** The column (0-based) and header the server will choose for these rows, given the user's picks. */
export function chosenColumn(rows: string[][], target: ScrubTarget, column: number | null, header: boolean | null): { column: number; header: boolean } {
  const first = rows[0] ?? [];
  let index = column;
  if (index === null) {
    const found = first.findIndex((c) => WORDS[target].test(c));
    index = found >= 0 && header !== false ? found : 0;
  }
  return { column: index, header: header ?? !DATA[target].test(first[index] ?? '') };
}
