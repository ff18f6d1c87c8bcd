/**
 * The rows of an uploaded scrub file, in batches, inside the parse worker: text files chunk by chunk
 * (text-rows.ts); workbooks through the zip guard and SheetJS, as the opt-out import reads them. Blank rows
 * are skipped and the export's formula guard is undone on every cell (CONTRACT §5).
 */
import { unguardCell } from '../lib/csv-cell.ts';
import type { ScrubFormat } from './scrub-protocol.ts';
import { countTextRows, isBlankRow, textRowBatches } from './text-rows.ts';

const APOSTROPHE = 39;

/** A row whose first cell starts with a visible ASCII character is not blank (no regex needed). */
const startsWithText = (cells: readonly string[]) => {
  const c = cells.length > 0 ? cells[0]!.charCodeAt(0) : 0;
  return c > 32 && c < 127;
};

/** Reads the file again from its start each time it is called (a text file from disk, a workbook from memory). */
export type RowPass = () => Iterable<string[][]>;

/** Counts a file's non-blank rows (text files without building their cells). */
export async function countRows(filePath: string, format: ScrubFormat, pass: RowPass): Promise<number> {
  if (format !== 'xlsx') return countTextRows(filePath, format === 'tsv');
  let count = 0;
  for (const rows of pass()) count += rows.length;
  return count;
}

/**
 * Opens a file for reading its non-blank rows as often as needed; with `unguard` (the default) every cell
 * has the export's guard undone, without it the cells are as uploaded (a scrub gives the sample back as it came).
 */
export async function openRows(filePath: string, format: ScrubFormat, maxRows: number, unguard = true): Promise<RowPass> {
  let raw: RowPass;
  if (format === 'xlsx') {
    const { readXlsxRows } = await import('./xlsx-rows.ts');
    raw = readXlsxRows(filePath, maxRows);
  } else raw = () => textRowBatches(filePath, format === 'tsv');
  return function* () {
    for (const batch of raw()) {
      const rows: string[][] = [];
      for (const cells of batch) {
        if (!startsWithText(cells) && isBlankRow(cells)) continue;
        if (unguard) for (let i = 0; i < cells.length; i++) if (cells[i]!.charCodeAt(0) === APOSTROPHE) cells[i] = unguardCell(cells[i]!);
        rows.push(cells);
      }
      if (rows.length > 0) yield rows;
    }
  };
}
