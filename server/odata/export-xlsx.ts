/**
 * The XLSX writer of collection exports (docs/cati-api.md#exports), on exceljs's streaming `stream.xlsx.WorkbookWriter`
 * (rows are committed as they come, nothing is kept per row): one sheet named after the set, the header
 * row bold and frozen, times as real Excel date-times (UTC, shown `yyyy-mm-dd hh:mm:ss.000`), numbers as
 * numbers, booleans as booleans, null as an empty cell. Strings are stored as text, never as formulas.
 *
 * Speed: every cell of a column shares one style object and every row one (empty) row style, so exceljs
 * finds each style in its cache instead of serialising it per cell (that was a third of the time); the
 * zip deflates at level ZIP_LEVEL (archiver's default, stated: deflate runs on libuv's pool, off the event
 * loop); rows come in small batches (each committed at once) so no synchronous stretch runs long.
 *
 * Back-pressure: exceljs writes the sheet's XML into its own buffer, which feeds the zip's deflate stream
 * without waiting for it; the writer measures what waits there (and in the response) and pauses the rows
 * until it falls under PENDING_BYTES, so memory stays flat whatever the row count.
 */
import { createRequire } from 'node:module';
import type ExcelJS from 'exceljs';
import type { Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ExportColumn, ExportWriter } from './export-stream.ts';

/** exceljs, loaded on the first XLSX answer (the server starts without it). */
const loadExcel = (): typeof ExcelJS => createRequire(import.meta.url)('exceljs') as typeof ExcelJS;

const DATE_FORMAT = 'yyyy-mm-dd hh:mm:ss.000';
const PENDING_BYTES = 4 * 1024 * 1024;
const ZIP_LEVEL = 1;
/** The row style exceljs gives each row (`{}`), shared so its style cache hits. */
const ROW_STYLE = {};

function cellValue(column: ExportColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case 'Edm.DateTimeOffset':
      return new Date(Number(value));
    case 'Edm.Boolean':
      return value === true || Number(value) !== 0;
    default:
      return typeof value === 'bigint' ? Number(value) : value;
  }
}

/** The parts of exceljs's StreamBuf (lib/utils/stream-buf.js) its back-pressure is read from. */
interface SheetBuffer {
  buffers?: { length: number }[];
  /** archiver wraps the sheet's buffer in a (readable-stream v2) PassThrough; what waits on either side counts. */
  pipes?: { _writableState?: { length: number }; _readableState?: { length: number } }[];
}

/** An XLSX writer streaming a one-sheet workbook into the response. */
export function xlsxWriter(res: Response, sheetName: string): ExportWriter {
  const workbook = new (loadExcel().stream.xlsx.WorkbookWriter)({ stream: res, useStyles: true, useSharedStrings: false, zip: { zlib: { level: ZIP_LEVEL } } });
  const sheet = workbook.addWorksheet(sheetName.slice(0, 31), { views: [{ state: 'frozen', ySplit: 1 }] });
  let columns: ExportColumn[] = [];
  let styles: Partial<ExcelJS.Style>[] = [];
  const pending = () => {
    const buf = (sheet as unknown as { stream?: SheetBuffer }).stream;
    const own = (buf?.buffers ?? []).reduce((n, b) => n + b.length, 0);
    const piped = (buf?.pipes ?? []).reduce((n, p) => n + (p._writableState?.length ?? 0) + (p._readableState?.length ?? 0), 0);
    return own + piped + res.writableLength;
  };
  return {
    batchRows: 100,
    start(cols) {
      columns = cols;
      styles = cols.map((c) => (c.type === 'Edm.DateTimeOffset' ? { numFmt: DATE_FORMAT } : {}));
      sheet.columns = cols.map((c) => ({
        header: c.name,
        key: c.name,
        width: c.type === 'Edm.DateTimeOffset' ? 24 : Math.max(10, c.name.length + 2),
        ...(c.type === 'Edm.DateTimeOffset' ? { style: { numFmt: DATE_FORMAT } } : {}),
      }));
      sheet.getRow(1).font = { bold: true };
      sheet.getRow(1).commit();
    },
    rows(batch) {
      let row: ExcelJS.Row | undefined;
      for (const values of batch) {
        row = sheet.addRow(columns.map((c, i) => cellValue(c, values[i])));
        (row as unknown as { style: object }).style = ROW_STYLE;
        for (let i = 0; i < columns.length; i++) row.getCell(i + 1).style = styles[i]!;
      }
      row?.commit(); // commits every row of the batch, in order
    },
    flush() {
      return pending() < PENDING_BYTES;
    },
    async wait() {
      while (pending() >= PENDING_BYTES / 2) {
        if (res.destroyed) return false;
        await sleep(2);
      }
      return !res.destroyed;
    },
    async end() {
      sheet.commit();
      // The workbook ends with the response; a client that goes away ends the wait too.
      await Promise.race([workbook.commit(), new Promise((resolve) => res.once('close', resolve))]);
    },
  };
}
