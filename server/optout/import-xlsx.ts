import XLSX from 'xlsx';
import { columnValues, ImportFileError, tooManyRows } from './import-parse.ts';
import { defusedZip } from './zip-guard.ts';

/**
 * Reads an untrusted .xlsx with SheetJS CE 0.20.3 (the npm package @e965/xlsx, aliased as `xlsx`: the
 * sheetjs.com build, with the fixes for CVE-2023-30533 prototype pollution and CVE-2024-22363 ReDoS) —
 * only ever inside the parse worker, which holds no database handle, with its memory and time limits:
 * bytes in, plain strings out. The zip is checked and re-packed uncompressed first (zip-guard.ts).
 */
/**
 * The first worksheet of an untrusted .xlsx, at most `maxRows` rows (413 beyond): the zip is checked and re-packed
 * first (its own 400/413 before the library sees a byte); a file SheetJS cannot read or without a sheet → 400.
 */
export function readFirstSheet(bytes: Uint8Array, maxRows: number): XLSX.WorkSheet {
  const safe = defusedZip(bytes);
  let sheet: XLSX.WorkSheet | undefined;
  try {
    const book = XLSX.read(safe, {
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
  return sheet;
}

/** Values of an .xlsx file's first sheet's relevant column (same header/blank/guard rules as text files). */
export function readXlsxValues(bytes: Uint8Array, maxRows: number): Iterable<string> {
  const sheet = readFirstSheet(bytes, maxRows);
  const rows = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: false, blankrows: false, defval: '' });
  return columnValues(
    rows.map((r) => r.map((c) => (c == null ? '' : String(c)))),
    maxRows,
  );
}
