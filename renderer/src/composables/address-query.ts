/**
 * A screen's filters and sort kept in the route's query (`#/history?tab=calls&orderby=Time%20desc`), so a view can be
 * bookmarked, shared and reloaded the same. One mechanism for every screen: `useAddressQuery`, over the app's router.
 */
import { watch } from 'vue';
import type { LocationQuery } from 'vue-router';
import { appRouter } from '../router-instance.ts';

/** The address of a screen with the given query (empty values left out): `#/history?tab=calls&from=…`. */
export function screenHref(path: string, params: Record<string, string | number | null | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') query.set(key, String(value));
  const text = query.toString().replace(/\+/g, '%20');
  return `#/${path}${text ? `?${text}` : ''}`;
}

/** One piece of state kept in the address: its text ('' = default, left out) and how to set it from text. */
export interface AddressField {
  get(): string;
  set(value: string): void;
}

/** A query value as text (the first of a repeated key; '' when absent). */
const queryText = (query: LocationQuery, key: string): string => {
  const v = query[key];
  return (Array.isArray(v) ? v[0] : v) ?? '';
};

/** The current route's query when it shows `screen`, else null. */
function queryOf(screen: string): LocationQuery | null {
  const route = appRouter().currentRoute.value;
  return route.path === `/${screen}` ? route.query : null;
}

/**
 * Keeps `fields` in the route's query while `screen` is shown. At creation (store setup, before the first load) the
 * address's values are taken over; later the address follows the state (`router.replace`: no new history entry).
 * Opening a link to the screen with a query (a bookmark, or a number on a report) sets the state and calls `reload`;
 * the bare screen link (the navigation) keeps the state and puts it back in the address.
 */
export function useAddressQuery(screen: string, fields: Record<string, AddressField>, reload: () => unknown): void {
  const router = appRouter();
  const values = () => Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.get()]));
  const wanted = () => Object.fromEntries(Object.entries(values()).filter(([, v]) => v !== ''));
  const same = (query: LocationQuery) => {
    const w = wanted();
    const keys = Object.keys(query).filter((k) => k in fields);
    return keys.length === Object.keys(w).length && keys.every((k) => queryText(query, k) === w[k]);
  };

  function write() {
    const query = queryOf(screen);
    if (!query || same(query)) return;
    // Keys that are not this screen's (the wallboard's `every`) stay.
    const others = Object.fromEntries(Object.entries(query).filter(([k]) => !(k in fields)));
    void router.replace({ path: `/${screen}`, query: { ...others, ...wanted() } });
  }

  function apply(query: LocationQuery): boolean {
    let changed = false;
    for (const [key, field] of Object.entries(fields)) {
      const value = queryText(query, key);
      if (field.get() !== value) {
        field.set(value);
        changed = true;
      }
    }
    return changed;
  }

  const ownKeys = (query: LocationQuery) => Object.keys(query).filter((k) => k in fields).length;
  const first = queryOf(screen);
  if (first && ownKeys(first) > 0) apply(first);
  watch(values, write, { deep: true, flush: 'post' });
  watch(
    () => router.currentRoute.value.fullPath,
    () => {
      const query = queryOf(screen);
      if (!query || same(query)) return;
      if (ownKeys(query) === 0) write();
      else if (apply(query)) void reload();
    },
  );
}

/** An address field over a string ref-like getter/setter pair. */
export const textField = (get: () => string, set: (v: string) => void): AddressField => ({ get, set });
