import { readFileSync } from 'node:fs';
import XLSX from 'xlsx';
import { readFirstSheet } from '../optout/import-xlsx.ts';

const BATCH = 5000;

/**
 * The first sheet's rows of an untrusted .xlsx, in batches — only inside the parse worker (memory and time
 * limits, no database handle). The zip is checked (bombs → 400/413) and re-packed before SheetJS sees it; a
 * workbook is read whole (the format gives no other way) and kept for the passes over it; rows are
 * produced one batch at a time.
 */
export function readXlsxRows(filePath: string, maxRows: number): () => Generator<string[][]> {
  const sheet = readFirstSheet(new Uint8Array(readFileSync(filePath)), maxRows);
  const data = (sheet['!data'] ?? []) as (XLSX.CellObject[] | undefined)[];
  return () => rowsOf(data);
}

function* rowsOf(data: (XLSX.CellObject[] | undefined)[]): Generator<string[][]> {
  let batch: string[][] = [];
  for (const row of data) {
    const cells: string[] = [];
    if (row) for (let c = 0; c < row.length; c++) cells.push(row[c] ? XLSX.utils.format_cell(row[c]!) : '');
    batch.push(cells);
    if (batch.length === BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
