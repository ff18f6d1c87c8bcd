/**
 * The delimiter rule (docs/files.md#delimiter): `.tsv` is tab; otherwise the one of `,` `;` tab under which
 * the first records (up to 50, quotes respected) parse into the same number of cells, the most cells winning,
 * `,` on a tie. A header `"Name, Vorname";"Email"` is a two-column `;` file.
 */
import { isBlankRecord, readRecords, type RecordStats } from './csv-records.ts';

export type Delimiter = ',' | ';' | '\t';

/** The candidates in the order that wins a tie. */
const CANDIDATES: readonly Delimiter[] = [',', ';', '\t'];

/** Records the rule looks at. */
export const DELIMITER_SAMPLE = 50;

/** Characters of a file's start a streaming reader gathers before it applies the rule (unless the file is shorter). */
export const DELIMITER_TEXT = 64 * 1024;

/**
 * How well the first records parse under `delimiter`: records that all parse (no malformed quote) into the same
 * number of cells, more than one, score above any others, by that number (a delimiter that occurs nowhere splits
 * nothing and wins only as the fallback); otherwise records without malformed quotes score above records with
 * them, then by the first record's cells (the fallback for ragged files).
 */
function score(text: string, delimiter: Delimiter, complete: boolean): number {
  const records: string[][] = [];
  const stats: RecordStats = { malformed: 0 };
  readRecords(text, 0, delimiter, complete, records, DELIMITER_SAMPLE, stats);
  const rows = records.filter((r) => !isBlankRecord(r));
  if (rows.length === 0) return 0;
  const width = rows[0]!.length;
  if (width > 1 && stats.malformed === 0 && rows.every((r) => r.length === width)) return 2_000_000 + width;
  return (stats.malformed === 0 ? 1_000_000 : 0) + Math.min(width, 999_999);
}

/**
 * The delimiter of a delimited text by its start (`complete` false: `text` is only the file's start, its last
 * record may be cut and is left out) or by its name (`.tsv`: tab).
 */
export function chooseDelimiter(text: string, complete: boolean, fileName = ''): Delimiter {
  if (/\.tsv$/i.test(fileName)) return '\t';
  let best: Delimiter = ',';
  let bestScore = -1;
  for (const d of CANDIDATES) {
    const s = score(text, d, complete);
    if (s > bestScore) [best, bestScore] = [d, s];
  }
  return best;
}
