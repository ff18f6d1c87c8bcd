/**
 * A scrub's result file as the client downloads it (docs/cati-api.md#scrubs): CSV (UTF-8 with BOM, RFC 4180)
 * or, with `$format=xlsx`, an XLSX streamed by exceljs's workbook writer — every cell text, so a leading `0`
 * or `+` stays. The sample's own cells are given back exactly as uploaded; only the `added` cells at the end
 * of each row (Reason, Matched…, Normalized, …: the server's) get the formula guard in CSV.
 * Both are streamed from the rows (this server's file or the database's chunks) with back-pressure; nothing holds the whole result.
 */
import { createRequire } from 'node:module';
import type ExcelJS from 'exceljs';
import type { Response } from 'express';
import { setImmediate as yieldLoop } from 'node:timers/promises';
import { drained } from '../http/drained.ts';
import { csvCell, csvPlainCell } from '../lib/csv-cell.ts';

/** exceljs, loaded on the first XLSX answer (the server starts without it). */
const loadExcel = (): typeof ExcelJS => createRequire(import.meta.url)('exceljs') as typeof ExcelJS;

const ROWS_PER_TURN = 2000;

/** One CSV line: the sample's cells as they are, the last `added` cells guarded. */
function csvLine(cells: readonly string[], added: number): string {
  const own = cells.length - added;
  let line = '';
  for (let i = 0; i < cells.length; i++) line += (i > 0 ? ',' : '') + (i < own ? csvPlainCell(cells[i]!) : csvCell(cells[i]!));
  return line + '\r\n';
}

/** Streams a result's rows as CSV; `added`: how many trailing cells of each row the server added. */
export async function sendCsv(res: Response, rows: AsyncIterable<string[]>, fileName: string, added: number): Promise<void> {
  res.status(200).set({ 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${fileName}.csv"` });
  res.write('\uFEFF');
  let n = 0;
  let chunk = '';
  for await (const cells of rows) {
    chunk += csvLine(cells, added);
    if (++n % ROWS_PER_TURN === 0) {
      const more = res.write(chunk);
      chunk = '';
      if (!more && !(await drained(res))) return;
    }
  }
  res.end(chunk);
}

/** Streams a result's rows as a one-sheet XLSX workbook. */
export async function sendXlsx(res: Response, rows: AsyncIterable<string[]>, fileName: string): Promise<void> {
  res.status(200).set({
    'Content-Type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'Content-Disposition': `attachment; filename="${fileName}.xlsx"`,
  });
  const workbook = new (loadExcel().stream.xlsx.WorkbookWriter)({ stream: res, useStyles: false, useSharedStrings: false, zip: { zlib: { level: 1 } } });
  const sheet = workbook.addWorksheet(fileName.slice(0, 31));
  let n = 0;
  for await (const cells of rows) {
    sheet.addRow(cells).commit();
    if (++n % ROWS_PER_TURN === 0) {
      if (res.destroyed) return;
      if (res.writableNeedDrain && !(await drained(res))) return;
      await yieldLoop();
    }
  }
  sheet.commit();
  await workbook.commit();
}
