/** The sort of one table: which column, which direction; the `$orderby` it means, and its place in the address. */
import { reactive } from 'vue';
import type { AddressField } from './address-query.ts';

/** A table's sort state; `toggle` sorts by a column (ascending first) or flips the direction of the current one. */
export interface TableSort {
  readonly key: string;
  readonly desc: boolean;
  toggle(key: string): void;
  /** Sets the sort (e.g. the default of another tab). */
  set(key: string, desc: boolean): void;
  /** `$orderby`: the column, its direction, then the tie-breaker (so paging is stable). */
  orderby(): string;
  /** For `useAddressQuery`: `Time desc`, or '' for the default sort. */
  readonly field: AddressField;
}

/** A sort that starts at `key`/`desc`; `tieBreak` (e.g. `Id desc`) is appended to `$orderby` unless it is the key. */
export function useTableSort(key: string, desc = false, tieBreak?: string | (() => string | undefined)): TableSort {
  const defaults = { key, desc };
  const state = reactive({ key, desc });
  const text = () => `${state.key}${state.desc ? ' desc' : ''}`;
  const sort: TableSort = reactive({
    get key() {
      return state.key;
    },
    get desc() {
      return state.desc;
    },
    toggle(k: string) {
      if (state.key === k) state.desc = !state.desc;
      else Object.assign(state, { key: k, desc: false });
    },
    set(k: string, d: boolean) {
      Object.assign(defaults, { key: k, desc: d });
      Object.assign(state, { key: k, desc: d });
    },
    orderby() {
      const tie = typeof tieBreak === 'function' ? tieBreak() : tieBreak;
      return tie && tie.split(' ')[0] !== state.key ? `${text()},${tie}` : text();
    },
    field: {
      get: () => (state.key === defaults.key && state.desc === defaults.desc ? '' : text()),
      set(value: string) {
        const m = /^([A-Za-z_][\w.]*)(?:\s+(asc|desc))?$/i.exec(value.trim());
        if (m) Object.assign(state, { key: m[1], desc: m[2]?.toLowerCase() === 'desc' });
        else Object.assign(state, defaults);
      },
    },
  });
  return sort;
}

/** Rows sorted in the browser by the table's sort (small tables that arrive whole); `value` reads a column. */
export function sortRows<T>(rows: readonly T[], sort: Pick<TableSort, 'key' | 'desc'>, value: (row: T, key: string) => unknown): T[] {
  const factor = sort.desc ? -1 : 1;
  return [...rows].sort((a, b) => factor * compareValues(value(a, sort.key), value(b, sort.key)));
}

/** Nulls first, numbers by value, the rest as text in the user's locale. */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}
