/**
 * A screen's filters and sort kept in the address (`#/history?tab=calls&orderby=Time%20desc`), so a view can be
 * bookmarked, shared and reloaded the same. One mechanism for every screen: `useAddressQuery`.
 */
import { watch } from 'vue';

/** The screen path and query of a hash such as `#/history?tab=calls`. */
export function splitHash(hash = window.location.hash): { path: string; query: URLSearchParams } {
  const body = hash.replace(/^#\/?/, '');
  const at = body.indexOf('?');
  return { path: at < 0 ? body : body.slice(0, at), query: new URLSearchParams(at < 0 ? '' : body.slice(at + 1)) };
}

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

/**
 * Keeps `fields` in the address while `screen` is shown. At creation (store setup, before the first load) the
 * address's values are taken over; later the address follows the state (replaceState: no new history entry).
 * Opening a link to the screen with a query (a bookmark, or a number on a report) sets the state and calls `reload`;
 * the bare screen link (the navigation) keeps the state and puts it back in the address.
 */
export function useAddressQuery(screen: string, fields: Record<string, AddressField>, reload: () => unknown): void {
  const values = () => Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.get()]));

  function write() {
    if (splitHash().path !== screen) return;
    const hash = screenHref(screen, values());
    if (window.location.hash !== hash) window.history.replaceState(window.history.state, '', hash);
  }

  function apply(query: URLSearchParams): boolean {
    let changed = false;
    for (const [key, field] of Object.entries(fields)) {
      const value = query.get(key) ?? '';
      if (field.get() !== value) {
        field.set(value);
        changed = true;
      }
    }
    return changed;
  }

  const first = splitHash();
  if (first.path === screen && first.query.size > 0) apply(first.query);
  watch(values, write, { deep: true, flush: 'post' });
  window.addEventListener('hashchange', () => {
    const { path, query } = splitHash();
    if (path !== screen) return;
    if (query.size === 0) write();
    else if (apply(query)) void reload();
  });
}

/** An address field over a string ref-like getter/setter pair. */
export const textField = (get: () => string, set: (v: string) => void): AddressField => ({ get, set });
