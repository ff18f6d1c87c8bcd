/**
 * The CSV writer of collection exports (CONTRACT §8): RFC 4180 with CRLF, UTF-8 with a BOM so Excel
 * opens it right, the opt-out export's formula guard (csv-cell.ts), times as ISO 8601 UTC with
 * milliseconds, numbers as numbers, booleans as true/false, null as an empty cell.
 */
import type { Response } from 'express';
import { csvCell } from '../optout/csv-cell.ts';
import { drained, type ExportColumn, type ExportWriter } from './export-stream.ts';

const CHUNK_CHARS = 64 * 1024;

/** One value as a CSV cell of its column's type. */
export function csvValue(column: ExportColumn, value: unknown): string {
  if (value === null || value === undefined) return '';
  switch (column.type) {
    case 'Edm.DateTimeOffset':
      return new Date(Number(value)).toISOString();
    case 'Edm.Boolean':
      return value === true || Number(value) !== 0 ? 'true' : 'false';
    default:
      return typeof value === 'number' || typeof value === 'bigint' ? String(value) : csvCell(String(value));
  }
}

/** A CSV writer on the response, buffering ~64 KiB between writes. */
export function csvWriter(res: Response): ExportWriter {
  let columns: ExportColumn[] = [];
  let chunk = '\uFEFF';
  return {
    start(cols) {
      columns = cols;
      chunk += `${cols.map((c) => csvCell(c.name)).join(',')}\r\n`;
    },
    row(values) {
      let line = '';
      for (let i = 0; i < columns.length; i++) line += (i ? ',' : '') + csvValue(columns[i]!, values[i]);
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
