/**
 * The text of one workbook cell (docs/files.md#xlsx): a number as Excel holds it, never in exponent form
 * (`4917012345678`, not `4.91701E+12`); a date cell as an ISO date (with the time when it has one); a formula
 * cell as its cached value; text as written; TRUE/FALSE; an error as Excel shows it (`#N/A`). Pure: the caller
 * hands in SheetJS's cell and its date-format test.
 */

/** The parts of a SheetJS cell this reads (`t` type, `v` raw value, `z` number format, `w` formatted text). */
export interface SheetCell {
  t: string;
  v?: unknown;
  z?: string | number;
  w?: string;
}

const ERRORS: Record<number, string> = { 0: '#NULL!', 7: '#DIV/0!', 15: '#VALUE!', 23: '#REF!', 29: '#NAME?', 36: '#NUM!', 42: '#N/A', 43: '#GETTING_DATA' };

/** A number written out in full: integers digit by digit, fractions without exponent (`1e-7` → `0.0000001`). */
export function plainNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n) && Math.abs(n) >= 1e21) return BigInt(n).toString();
  const s = String(n);
  const e = s.indexOf('e');
  if (e < 0) return s;
  // Shortest round-trip digits, then the decimal point moved by the exponent.
  const exponent = Number(s.slice(e + 1));
  const mantissa = s.slice(0, e);
  const negative = mantissa.startsWith('-');
  const [whole, fraction = ''] = (negative ? mantissa.slice(1) : mantissa).split('.');
  const digits = whole! + fraction;
  const point = whole!.length + exponent;
  const text = point <= 0 ? `0.${'0'.repeat(-point)}${digits}` : point >= digits.length ? digits + '0'.repeat(point - digits.length) : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${text}` : text;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** An Excel date serial as an ISO date (`2026-11-28`), or date-time (`2026-11-28T13:45:10`) when it has a time. */
export function excelDate(serial: number, date1904 = false): string {
  const ms = Math.round((serial + (date1904 ? 1462 : 0)) * 86_400_000);
  const d = new Date(Date.UTC(1899, 11, 30) + ms);
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  if (ms % 86_400_000 === 0) return date;
  return `${date}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** The text of a cell; `isDate` tells a date number format (SheetJS's `SSF.is_date`). */
export function cellText(cell: SheetCell | undefined, isDate: (format: string | number) => boolean, date1904 = false): string {
  if (!cell) return '';
  const v = cell.v;
  switch (cell.t) {
    case 'n':
      if (typeof v !== 'number') return '';
      return cell.z !== undefined && cell.z !== 'General' && isDate(cell.z) ? excelDate(v, date1904) : plainNumber(v);
    case 's':
      return typeof v === 'string' ? v : String(v ?? '');
    case 'b':
      return v ? 'TRUE' : 'FALSE';
    case 'd':
      return v instanceof Date ? v.toISOString().replace(/T00:00:00\.000Z$/, '').replace(/\.000Z$/, '') : String(v ?? '');
    case 'e':
      return cell.w ?? (typeof v === 'number' ? (ERRORS[v] ?? '#ERROR') : '#ERROR');
    default:
      return '';
  }
}
