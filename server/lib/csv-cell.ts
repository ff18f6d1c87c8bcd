/**
 * One CSV cell in both directions (docs/optout-api.md#lists): export quotes per RFC 4180 and guards against formula
 * injection; import undoes exactly that guard, so export → import gives back the same values.
 */

/** First characters a spreadsheet may read as a formula (or that the guard itself uses). */
const GUARDED = new Set(['=', '+', '-', '@', '\t', '\r', "'"]);
const NEEDS_QUOTES = /[",\r\n]/;

/** A cell for an export: `'`-prefixed when it starts with = + - @ tab CR or ', quoted when needed. */
export function csvCell(value: string): string {
  const guarded = value.length > 0 && GUARDED.has(value[0]!) ? `'${value}` : value;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** A cell written exactly as it is (quoted per RFC 4180 when needed, no formula guard): a person's own data given back (docs/cati-api.md#scrubs). */
export function csvPlainCell(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Undoes the export's guard on an imported (already unquoted) cell: one leading ' before a guarded character. */
export function unguardCell(value: string): string {
  return value.length > 1 && value[0] === "'" && GUARDED.has(value[1]!) ? value.slice(1) : value;
}
