/**
 * The rows of an uploaded scrub file, in batches, inside the parse worker, read by the one intake
 * (server/files/file-rows.ts, docs/files.md). Blank rows are skipped and the export's formula guard is undone
 * on every cell (docs/optout-api.md) unless the caller keeps the cells as uploaded.
 */
import type { TextEncodingName } from '../../common/files/encoding.ts';
import { openFileRows, type ReadOptions } from '../files/file-rows.ts';
import { unguardCell } from '../lib/csv-cell.ts';
import type { ScrubFormat } from './scrub-protocol.ts';

const APOSTROPHE = 39;

/** A row whose first cell starts with a visible ASCII character is not blank (no regex needed). */
const startsWithText = (cells: readonly string[]) => {
  const c = cells.length > 0 ? cells[0]!.charCodeAt(0) : 0;
  return c > 32 && c < 127;
};

const isBlankRow = (cells: readonly string[]) => cells.every((c) => c.trim() === '');

/**
 * Reads the file again from its start each time it is called; `encoding` is the text encoding the file was
 * read in (null: a workbook), `count` its non-blank rows (text files counted without building their cells).
 */
export type RowPass = (() => Iterable<string[][]>) & { encoding: TextEncodingName | null; count: () => number };

/** Counts a file's non-blank rows. */
export async function countRows(_filePath: string, _format: ScrubFormat, pass: RowPass): Promise<number> {
  return pass.count();
}

/**
 * Opens a file for reading its non-blank rows as often as needed; a bad file → FileError. With `unguard`
 * (the default) every cell has the export's guard undone; without it the cells are as uploaded (a scrub gives
 * the sample back as it came, docs/cati-api.md#scrubs).
 */
export async function openRows(filePath: string, format: ScrubFormat, maxRows: number, options: ReadOptions = {}, unguard = true): Promise<RowPass> {
  const file = await openFileRows(filePath, format, maxRows, options);
  const pass = function* () {
    for (const batch of file.batches()) {
      const rows: string[][] = [];
      for (const cells of batch) {
        if (!startsWithText(cells) && isBlankRow(cells)) continue;
        if (unguard) for (let i = 0; i < cells.length; i++) if (cells[i]!.charCodeAt(0) === APOSTROPHE) cells[i] = unguardCell(cells[i]!);
        rows.push(cells);
      }
      if (rows.length > 0) yield rows;
    }
  };
  return Object.assign(pass, { encoding: file.encoding, count: () => file.count() });
}
