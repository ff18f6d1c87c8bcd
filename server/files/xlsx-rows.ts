/**
 * Rows of an untrusted .xlsx (docs/files.md#xlsx), read with SheetJS CE 0.20.3 (the npm package @e965/xlsx,
 * aliased as `xlsx`: the sheetjs.com build, with the fixes for CVE-2023-30533 prototype pollution and
 * CVE-2024-22363 ReDoS) — only ever inside a worker with memory and time limits and no database handle: bytes
 * in, plain strings out. The zip is checked and re-packed uncompressed first (zip-guard.ts). A workbook is read
 * whole (the format gives no other way) and its rows produced a batch at a time, as often as asked.
 */
import XLSX from 'xlsx';
import { cellText, type SheetCell } from '../../common/files/xlsx-cell.ts';
import { FileError, tooManyRows } from './file-error.ts';
import { defusedZip } from './zip-guard.ts';

const BATCH = 5000;

const unreadable = (err: unknown) => new FileError(400, `The .xlsx file cannot be read as an Excel workbook: ${(err as Error).message}`);
const quoted = (names: readonly string[]) => names.map((n) => `'${n}'`).join(', ');

/**
 * The sheet a `sheet` form field names among `names`: the first one when it is empty, else the sheet of that
 * name (any case), else the 1-based number's; anything else → 400 naming the sheets.
 */
export function pickSheet(names: readonly string[], sheet: string | undefined): string {
  if (names.length === 0) throw new FileError(400, 'The .xlsx file has no worksheet');
  const asked = sheet?.trim() ?? '';
  if (asked === '') return names[0]!;
  const named = names.find((n) => n === asked) ?? names.find((n) => n.toLowerCase() === asked.toLowerCase());
  if (named !== undefined) return named;
  if (/^\d+$/.test(asked) && Number(asked) >= 1 && Number(asked) <= names.length) return names[Number(asked) - 1]!;
  throw new FileError(400, `The workbook has no sheet '${asked}': its sheets are ${quoted(names)} (name one, or give its number from 1 to ${names.length})`);
}

/** An opened workbook sheet: its rows in batches as often as asked. */
export interface WorkbookRows {
  sheet: string;
  batches(): Generator<string[][]>;
}

/**
 * Opens a sheet of an untrusted .xlsx (the first, or the one `sheet` names), at most `maxRows` data rows beyond
 * a header (400 beyond): the zip is checked and re-packed first (its own 400/413 before the library sees a
 * byte); a file SheetJS cannot read, without a sheet, or an unknown sheet → 400.
 */
export function openWorkbook(bytes: Uint8Array, maxRows: number, sheet?: string): WorkbookRows {
  const safe = defusedZip(bytes);
  let name: string;
  let book: XLSX.WorkBook;
  try {
    const names = sheet?.trim() ? XLSX.read(safe, { type: 'array', bookSheets: true }).SheetNames : undefined;
    name = names ? pickSheet(names, sheet) : '';
    book = XLSX.read(safe, {
      type: 'array', dense: true, sheets: names ? name : 0, sheetRows: maxRows + 2,
      cellFormula: false, cellHTML: false, cellStyles: false, cellDates: false, cellNF: true, cellText: false,
    });
    if (!names) name = pickSheet(book.SheetNames, undefined);
  } catch (err) {
    if (err instanceof FileError) throw err;
    throw unreadable(err);
  }
  const ws = book.Sheets[name];
  if (!ws) throw new FileError(400, 'The .xlsx file has no worksheet');
  const full = ws['!fullref'] ?? ws['!ref'];
  if (full && XLSX.utils.decode_range(full).e.r + 1 > maxRows + 1) throw tooManyRows(maxRows);
  const date1904 = Boolean(book.Workbook?.WBProps?.date1904);
  const data = (ws['!data'] ?? []) as (XLSX.CellObject[] | undefined)[];
  return { sheet: name, batches: () => rowsOf(data, date1904) };
}

const isDate = (format: string | number) => XLSX.SSF.is_date(format);

function* rowsOf(data: (XLSX.CellObject[] | undefined)[], date1904: boolean): Generator<string[][]> {
  let batch: string[][] = [];
  for (const row of data) {
    const cells: string[] = [];
    if (row) for (let c = 0; c < row.length; c++) cells.push(cellText(row[c] as SheetCell | undefined, isDate, date1904));
    batch.push(cells);
    if (batch.length === BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
