/**
 * Which column of an uploaded list is scrubbed, and whether its first row is a header (docs/cati-api.md#scrubs):
 * `column` = a header name (any case) or a 1-based column number; by default the first column whose header
 * contains `phone`, `tel` or `number` (e-mail lists: `mail`), else column 1. `header` = `true`/`false`; by
 * default the first row is a header when its chosen cell has no digit (e-mail lists: no `@`, since an address
 * rarely has a digit either).
 */
import { badRequest } from '../errors.ts';
import type { ScrubKind } from './scrub-protocol.ts';

export interface ColumnChoice {
  /** 0-based. */
  column: number;
  header: boolean;
}

const DEFAULT_WORDS: Record<ScrubKind, RegExp> = { phone: /phone|tel|number/i, email: /mail/i };
const LOOKS_LIKE_DATA: Record<ScrubKind, RegExp> = { phone: /\d/, email: /@/ };

function parseHeaderFlag(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  const v = value.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw badRequest(`header must be 'true' or 'false', not '${value}'`);
}

const listCells = (cells: readonly string[]) => cells.map((c) => `'${c}'`).join(', ');

/**
 * Applies the rules to the file's first non-blank rows (`head`); a column the file does not have, an empty
 * file or a bad `header` value → 400 saying which.
 */
export function chooseColumn(head: readonly (readonly string[])[], kind: ScrubKind, column: string | undefined, header: string | undefined): ColumnChoice {
  if (head.length === 0) throw badRequest('The file is empty: it has no rows');
  const first = head[0]!;
  const width = Math.max(...head.map((r) => r.length));
  const headerFlag = parseHeaderFlag(header);
  const asked = column?.trim();
  let index: number;
  let named = false;
  if (asked === undefined || asked === '') {
    const found = first.findIndex((c) => DEFAULT_WORDS[kind].test(c));
    index = found >= 0 && headerFlag !== false ? found : 0;
  } else if (/^\d+$/.test(asked)) {
    index = Number(asked) - 1;
    if (index < 0 || index >= width) throw badRequest(`No column ${asked}: the file has ${width} column${width === 1 ? '' : 's'}`);
  } else {
    index = first.findIndex((c) => c.trim().toLowerCase() === asked.toLowerCase());
    if (index < 0) throw badRequest(`No column named '${asked}': the first row has ${listCells(first)}`);
    if (headerFlag === false) throw badRequest(`column names a header cell ('${asked}') but header is false`);
    named = true;
  }
  const isHeader = headerFlag ?? (named || !LOOKS_LIKE_DATA[kind].test(first[index] ?? ''));
  return { column: index, header: isHeader };
}
