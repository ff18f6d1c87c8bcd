/**
 * The CSV writer of collection exports (CONTRACT §8): RFC 4180 with CRLF, UTF-8 with a BOM so Excel
 * opens it right, the opt-out export's formula guard (csv-cell.ts), times as ISO 8601 UTC with
 * milliseconds, numbers as numbers, booleans as true/false, null as an empty cell.
 */
import type { Response } from 'express';
import { csvCell } from '../optout/csv-cell.ts';
import { drained, type ExportColumn, type ExportWriter } from './export-stream.ts';

const CHUNK_CHARS = 64 * 1024;

type Cell = (value: unknown) => string;

const timeCell: Cell = (v) => (v === null || v === undefined ? '' : new Date(Number(v)).toISOString());
const boolCell: Cell = (v) => (v === null || v === undefined ? '' : v === true || Number(v) !== 0 ? 'true' : 'false');
const plainCell: Cell = (v) =>
  v === null || v === undefined ? '' : typeof v === 'number' || typeof v === 'bigint' ? String(v) : csvCell(String(v));

/** How values of a column's type become CSV cells (chosen once per column, not per value). */
export function csvCellOf(column: ExportColumn): Cell {
  return column.type === 'Edm.DateTimeOffset' ? timeCell : column.type === 'Edm.Boolean' ? boolCell : plainCell;
}

/** A CSV writer on the response, buffering ~64 KiB between writes. */
export function csvWriter(res: Response): ExportWriter {
  let cells: Cell[] = [];
  let chunk = '\uFEFF';
  return {
    start(cols) {
      cells = cols.map(csvCellOf);
      chunk += `${cols.map((c) => csvCell(c.name)).join(',')}\r\n`;
    },
    row(values) {
      let line = cells[0]!(values[0]);
      for (let i = 1; i < cells.length; i++) line += `,${cells[i]!(values[i])}`;
      chunk += `${line}\r\n`;
    },
    flush() {
      if (chunk.length < CHUNK_CHARS) return true;
      const more = res.write(chunk);
      chunk = '';
      return more;
    },
    wait: () => drained(res),
    end() {
      res.end(chunk);
      return Promise.resolve();
    },
  };
}
