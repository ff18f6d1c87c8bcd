/** Small helpers for OData URLs and answers (CONTRACT §3). */

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

/** Formats an ISO time for tables in the user's locale. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}
