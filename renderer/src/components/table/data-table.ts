/** The columns of a DataTable and what it does with them off screen: local sort and filter, and the export of what is shown. */
import { compareValues } from '../../composables/table-sort.ts';

/** One column: its header, how a row reads in it (shown text, sort value, export cell) and how it looks. */
export interface DataColumn<T> {
  /** Names the column (and its `cell-<key>` slot); the sort field unless `sort` names another. */
  key: string;
  /** The header, as shown and exported (a time column names its zone here). */
  label: string;
  /** The cell's text, shown unless a `cell-<key>` slot draws it; also what the export writes and the filter reads. */
  text?: (row: T) => string | number;
  /** Sortable: `true` sorts by `key`, a string by that field (`$orderby` when the table sorts on the server). */
  sort?: boolean | string;
  /** The value a local sort compares (default: `text`). */
  sortValue?: (row: T) => unknown;
  /** A class for the header and the cells (`num`, `mono`). */
  class?: string;
  /** The header is for screen readers only (an actions column). */
  hiddenLabel?: boolean;
  /** The cells are row headers (`<th scope="row">`). */
  rowHeader?: boolean;
  /** Left out of the export (controls, charts). */
  noExport?: boolean;
}

/** A column the export adds after the shown ones (the ids behind the names). */
export interface ExtraColumn<T> {
  label: string;
  value: (row: T) => string | number;
}

/** The sort field of a column, or undefined when it does not sort. */
export const sortField = <T>(c: DataColumn<T>): string | undefined => (c.sort === true ? c.key : typeof c.sort === 'string' ? c.sort : undefined);

/** A row's text in a column: its `text`, else the row's property of that key. */
export function cellText<T>(c: DataColumn<T>, row: T): string | number {
  if (c.text) return c.text(row);
  const v = (row as Record<string, unknown>)[c.key];
  return v === null || v === undefined ? '' : typeof v === 'number' ? v : String(v);
}

/** The rows whose text in any column contains `needle` (case-insensitive); all of them for an empty needle. */
export function filterRows<T>(rows: readonly T[], columns: readonly DataColumn<T>[], needle: string): T[] {
  const n = needle.trim().toLocaleLowerCase();
  if (!n) return [...rows];
  return rows.filter((r) => columns.some((c) => String(cellText(c, r)).toLocaleLowerCase().includes(n)));
}

/** The rows in the order of the column sorted by (`key`, `desc`); as given when no column has that sort field. */
export function sortLocally<T>(rows: readonly T[], columns: readonly DataColumn<T>[], key: string, desc: boolean): T[] {
  const c = columns.find((x) => sortField(x) === key);
  if (!c) return [...rows];
  const value = c.sortValue ?? ((r: T) => cellText(c, r));
  const factor = desc ? -1 : 1;
  return [...rows].sort((a, b) => factor * compareValues(value(a), value(b)));
}

/** The export of a table (docs/screens.md#truth): the shown columns in their order and with their headers, then the extra ones. */
export function exportTable<T>(columns: readonly DataColumn<T>[], rows: readonly T[], extra: readonly ExtraColumn<T>[] = []) {
  const shown = columns.filter((c) => !c.noExport);
  return {
    header: [...shown.map((c) => c.label), ...extra.map((e) => e.label)],
    rows: rows.map((r) => [...shown.map((c) => cellText(c, r)), ...extra.map((e) => e.value(r))]),
  };
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea, [tabindex]';

/**
 * Arrow keys between rows: Up/Down move the focus to the control in the same column of the row above/below (else to
 * that row's first control), Home/End to the first/last row's. Answers true when it moved the focus.
 */
export function moveFocus(event: KeyboardEvent, body: HTMLTableSectionElement): boolean {
  if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(event.key)) return false;
  const target = event.target as HTMLElement;
  // Text fields and lists keep their own arrow keys.
  if (target.matches('input:not([type=checkbox]):not([type=radio]), select, textarea')) return false;
  const cell = target.closest('td, th') as HTMLTableCellElement | null;
  const row = cell?.parentElement as HTMLTableRowElement | null;
  if (!cell || !row) return false;
  const rows = [...body.rows].filter((r) => r.querySelector(FOCUSABLE));
  const at = rows.indexOf(row);
  const to = event.key === 'Home' ? 0 : event.key === 'End' ? rows.length - 1 : at + (event.key === 'ArrowDown' ? 1 : -1);
  const next = rows[to];
  if (!next || next === row) return false;
  const focus = (next.cells[cell.cellIndex]?.querySelector(FOCUSABLE) ?? next.querySelector(FOCUSABLE)) as HTMLElement | null;
  focus?.focus();
  return focus !== null;
}
