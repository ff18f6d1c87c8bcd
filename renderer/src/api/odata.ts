/** Small helpers for OData URLs and answers (docs/cati-api.md#odata). */

/** An OData string literal: `'O''Neil'`. */
export const odataString = (value: string): string => `'${value.replace(/'/g, "''")}'`;

/** A collection answer (`value` array, optional count and next link). */
export interface ODataCollection<T> {
  value: T[];
  '@odata.count'?: number;
  '@odata.nextLink'?: string;
}

/** Each entity carries its ETag for If-Match. */
export interface WithEtag {
  '@odata.etag'?: string;
}

const dateTimes = new Map<string, Intl.DateTimeFormat>();
/**
 * Formats an ISO time for tables: the locale's date, the one clock format of every screen (24-hour, seconds), in
 * `timeZone` (default this computer's zone; the screen names the zone in its column header).
 */
export function formatTime(iso: string | null | undefined, timeZone?: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const key = timeZone ?? '';
  let f = dateTimes.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(undefined, {
      timeZone: timeZone ?? undefined, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
    });
    dateTimes.set(key, f);
  }
  return f.format(d);
}
