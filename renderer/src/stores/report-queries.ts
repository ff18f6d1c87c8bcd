/** The requests of the report screens: aggregations with `$apply` (CONTRACT §8), each figure one request. */
import { request, type RequestOptions } from '../api/client.ts';
import type { ODataCollection } from '../api/odata.ts';

/** Pages followed at most (each up to the server's page size), so a runaway answer cannot loop for ever. */
const MAX_PAGES = 100;

/** Every row of a collection query, following `@odata.nextLink`. */
export async function fetchEvery<T>(path: string, query: RequestOptions['query']): Promise<T[]> {
  const rows: T[] = [];
  let page = await request<ODataCollection<T>>('GET', path, { query });
  for (let n = 1; ; n++) {
    rows.push(...page.value);
    const next = page['@odata.nextLink'];
    if (!next || n >= MAX_PAGES) return rows;
    const url = new URL(next, window.location.origin);
    page = await request<ODataCollection<T>>('GET', `${url.pathname}${url.search}`);
  }
}

/** The rows of `$apply` over an entity set (`/cati/callhistory`, …): the server groups, the browser only reads. */
export const aggregate = <T>(path: string, apply: string): Promise<T[]> => fetchEvery<T>(path, { $apply: apply });

/** An instant as an OData date-time literal. */
export const odataTime = (ms: number): string => new Date(ms).toISOString();

/** `Field ge start and Field lt end` (start inclusive, end exclusive). */
export const timeRange = (field: string, start: number, end: number): string => `${field} ge ${odataTime(start)} and ${field} lt ${odataTime(end)}`;

/** Joins filter conditions with `and` (empty ones left out). */
export const allOf = (...parts: (string | undefined | false)[]): string => parts.filter(Boolean).join(' and ');
