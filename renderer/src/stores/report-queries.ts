/** The requests of the report screens: aggregations with `$apply` (docs/cati-api.md#apply), each figure one request. */
import { request, type RequestOptions } from '../api/client.ts';
import type { ODataCollection } from '../api/odata.ts';

/** Rows asked for at once (the contract's largest `$top`): an aggregation is computed once per page. */
const PAGE = 10_000;
/** Pages read at most, so a runaway answer cannot loop for ever. */
const MAX_PAGES = 20;

/** Every row of a collection query, in pages of `$top=10000` (`$skip` on; usually one request). */
export async function fetchEvery<T>(path: string, query: RequestOptions['query']): Promise<T[]> {
  const rows: T[] = [];
  for (let n = 0; n < MAX_PAGES; n++) {
    const page = await request<ODataCollection<T>>('GET', path, { query: { ...query, $top: PAGE, $skip: n ? n * PAGE : undefined } });
    rows.push(...page.value);
    if (page.value.length < PAGE) break;
  }
  return rows;
}

/** The rows of `$apply` over an entity set (`/cati/callhistory`, …): the server groups, the browser only reads. */
export const aggregate = <T>(path: string, apply: string): Promise<T[]> => fetchEvery<T>(path, { $apply: apply });

/** An instant as an OData date-time literal. */
export const odataTime = (ms: number): string => new Date(ms).toISOString();

/** `Field ge start and Field lt end` (start inclusive, end exclusive). */
export const timeRange = (field: string, start: number, end: number): string => `${field} ge ${odataTime(start)} and ${field} lt ${odataTime(end)}`;

/** Joins filter conditions with `and` (empty ones left out). */
export const allOf = (...parts: (string | undefined | false)[]): string => parts.filter(Boolean).join(' and ');
