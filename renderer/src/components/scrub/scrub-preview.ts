/**
 * The first rows of a picked CSV/TSV/TXT file, read in the browser (only its first 64 KiB), and the column
 * and header rules of the server (docs/cati-api.md#scrubs; server/scrub/column-rules.ts) so the preview shows the
 * column the scrub will use.
 */

import { splitCsvLine } from '../../stores/blacklist-import.ts';

export type ScrubTarget = 'cati' | 'optout';

const WORDS: Record<ScrubTarget, RegExp> = { cati: /phone|tel|number/i, optout: /mail/i };
const DATA: Record<ScrubTarget, RegExp> = { cati: /\d/, optout: /@/ };

/** Workbooks up to this size get a preview (read whole by SheetJS in the page; larger ones are left to the server). */
const MAX_PREVIEW_XLSX_BYTES = 10 * 1024 * 1024;

/** The first `max` non-blank rows of a workbook's first sheet, or none when it is too large or unreadable. */
async function workbookRows(file: File, max: number): Promise<string[][]> {
  if (file.size > MAX_PREVIEW_XLSX_BYTES) return [];
  try {
    const XLSX = await import('xlsx');
    const book = XLSX.read(new Uint8Array(await file.arrayBuffer()), { type: 'array', sheets: 0, sheetRows: max * 4, cellFormula: false, cellHTML: false });
    const sheet = book.Sheets[book.SheetNames[0] ?? ''];
    if (!sheet) return [];
    const rows = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: false, blankrows: false, defval: '' });
    return rows.slice(0, max).map((r) => r.map((c) => String(c ?? '')));
  } catch {
    return [];
  }
}

/** The first `max` non-blank rows of a text file or (small) workbook. */
export async function previewRows(file: File, max = 8): Promise<string[][]> {
  if (/\.xlsx$/i.test(file.name)) return workbookRows(file, max);
  const text = new TextDecoder('utf-8').decode(await file.slice(0, 65536).arrayBuffer()).replace(/^\uFEFF/, '');
  const lines = text.split(/\r\n|\n|\r/).filter((l) => l.trim() !== '');
  if (!text.endsWith('\n') && file.size > 65536) lines.pop(); // the last line may be cut
  const first = lines[0] ?? '';
  const delimiter = /\.tsv$/i.test(file.name) ? '\t' : ([',', ';', '\t'] as const).reduce((best, d) => (first.split(d).length > first.split(best).length ? d : best), ',' as string);
  return lines.slice(0, max).map((l) => splitCsvLine(l, delimiter));
}

/** The column (0-based) and header the server will choose for these rows, given the user's picks. */
export function chosenColumn(rows: string[][], target: ScrubTarget, column: number | null, header: boolean | null): { column: number; header: boolean } {
  const first = rows[0] ?? [];
  let index = column;
  if (index === null) {
    const found = first.findIndex((c) => WORDS[target].test(c));
    index = found >= 0 && header !== false ? found : 0;
  }
  return { column: index, header: header ?? !DATA[target].test(first[index] ?? '') };
}
