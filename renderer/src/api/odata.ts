/** Small helpers for OData URLs and answers (docs/cati-api.md). */
import { formatDateTime } from '../i18n/index.ts';

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

/**
 * Formats an ISO time for tables: the language's date, the one clock format of every screen (24-hour, seconds), in
 * `timeZone` (default this computer's zone; the screen names the zone in its column header).
 */
export function formatTime(iso: string | null | undefined, timeZone?: string | null): string {
  return iso ? formatDateTime(iso, { timeZone, seconds: true }) : '';
}
