import XLSX from 'xlsx';
import { columnValues, ImportFileError, tooManyRows } from './import-parse.ts';

/**
 * Reads an untrusted .xlsx (xlsx 0.18.5, advisory GHSA-4r6h-8v6p-xvw6) — only ever inside the disposable
 * import worker with its memory and time limits: bytes in, plain strings out.
 */
/** Values of an .xlsx file's first sheet's relevant column (same header/blank/guard rules as text files). */
export function readXlsxValues(bytes: Uint8Array, maxRows: number): Iterable<string> {
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

