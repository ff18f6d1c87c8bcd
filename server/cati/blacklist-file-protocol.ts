/**
 * The messages between a blacklist file import (blacklist-file-import.ts, main thread) and its parse worker
 * (blacklist-file-worker.ts, no database handle). worker → main: `accepted` once the file's columns and
 * rows are known (or `failed`), `progress` while it normalises, then `items` (every valid row, packed) or
 * `failed`. main → worker: nothing.
 */
import type { FileFormat } from '../files/file-format.ts';

/** workerData of the parse worker. */
export interface BlacklistFileJob {
  filePath: string;
  format: FileFormat;
  sheet: string | undefined;
  column: string | undefined;
  header: string | undefined;
  /** The Type of rows without their own. */
  type: 'Equal' | 'StartWith';
  region: string | null;
  maxRows: number;
}

/** One invalid row as the job reports it (docs/cati-api.md#blacklist-imports). */
export interface InvalidRow {
  Row: number;
  Value: string;
  Message: string;
}

export type FromBlacklistWorker =
  | { type: 'accepted'; rows: number; encoding: string | null }
  | { type: 'progress'; processed: number }
  /** `numbers` and `comments` are JSON arrays (comments: string or null), `types[i]` 1 = StartWith. */
  | { type: 'items'; numbers: string; types: Uint8Array<ArrayBuffer>; comments: string; invalid: number; invalidRows: InvalidRow[] }
  | { type: 'failed'; status: 400 | 413; message: string };
