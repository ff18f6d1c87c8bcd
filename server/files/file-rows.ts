/**
 * The one entry to an uploaded file's rows (docs/files.md): a text file chunk by chunk (text-rows.ts), a
 * workbook through the zip guard and SheetJS (xlsx-rows.ts, loaded only for workbooks; call this only inside a
 * worker with limits when the file may be a workbook). Rows come in batches, blank ones included, cells as the
 * file holds them.
 */
import type { TextEncodingName } from '../../common/files/encoding.ts';
import type { FileFormat } from './file-format.ts';
import { openTextFile } from './text-rows.ts';
import { readFileSync } from 'node:fs';

/** An uploaded file opened for reading its rows as often as needed. */
export interface FileRows {
  /** The text encoding it was read in (null: a workbook). */
  encoding: TextEncodingName | null;
  /** Its rows in batches, blank ones included. */
  batches(): Iterable<string[][]>;
  /** Its non-blank rows. */
  count(): number;
}

/** Options of a read: the workbook sheet a `sheet` form field names (name or 1-based number). */
export interface ReadOptions {
  sheet?: string | undefined;
}

const blank = (cells: readonly string[]) => cells.every((c) => c.trim() === '');

/** Opens an uploaded file of a checked format (file-format.ts); a bad file → FileError (400/413). */
export async function openFileRows(path: string, format: FileFormat, maxRows: number, options: ReadOptions = {}): Promise<FileRows> {
  if (format !== 'xlsx') {
    const file = openTextFile(path, format === 'tsv');
    return file;
  }
  const { openWorkbook } = await import('./xlsx-rows.ts');
  const book = openWorkbook(new Uint8Array(readFileSync(path)), maxRows, options.sheet);
  return {
    encoding: null,
    batches: book.batches,
    count() {
      let n = 0;
      for (const rows of book.batches()) for (const r of rows) if (!blank(r)) n++;
      return n;
    },
  };
}
