import type { MessagePort } from 'node:worker_threads';
import type { BulkLink } from '../db/bulk-insert.ts';
import type { EntryKind } from './entries.ts';
import type { TextEncodingName } from '../../common/files/encoding.ts';
import type { FileFormat } from '../files/file-format.ts';

/**
 * One job the main thread posts to a workbook parser (import-parse-worker.ts, no database handle; ended after
 * each workbook): the upload's temp file (not its bytes) and the port to the import worker, where the valid
 * values go.
 */
export interface ParseJob {
  filePath: string;
  format: FileFormat;
  kind: EntryKind;
  maxRows: number;
  /** The workbook sheet to read (name or 1-based number; docs/files.md#xlsx). */
  sheet?: string | undefined;
  port: MessagePort;
}

/** What an import worker (import-worker.ts) is started with: a flag the main thread raises to stop it between two batches. */
export interface ImportWorkerStart {
  stop: Int32Array;
}

/**
 * One job the main thread posts to an import worker: where the values come from (a text file it reads itself,
 * or the port of a workbook parser), and the Store's bulk insert it feeds them into (`link`, db/bulk-insert.ts).
 */
export interface ImportJob {
  source: { filePath: string; tab: boolean } | { port: MessagePort };
  kind: EntryKind;
  maxRows: number;
  link: BulkLink;
}

/** Valid values per batch the parser sends (and the inline path collects). */
export const IMPORT_BATCH = 5000;

/** Workbook parser → import worker over their port: batches of valid (normalised) values, then the parser's counts. */
export type ParsedMessage = { values: string[] } | { end: FileCounts };

/** A file's counts after validation, and the text encoding it was read in (null: a workbook). */
export interface FileCounts {
  valid: number;
  invalid: number;
  invalidItems: InvalidItem[];
  encoding: TextEncodingName | null;
}

/** The import result (seed §2). */
export interface ImportResult {
  newRows: number;
  duplicatedRows: number;
  invalidRows: number;
}

/** One refused value: its data row (1-based; the header row and blank rows are not counted), the value, why. */
export interface InvalidItem {
  row: number;
  value: string;
  reason: string;
}

/** Refused values the worker reports at most (the first ones of the file). */
export const MAX_INVALID_ITEMS = 1000;

/** What the worker answers: the result and the first refused values (the route adds them only when asked). */
export interface ImportOutcome extends ImportResult {
  invalidItems: InvalidItem[];
  /** The text encoding the file was read in (null: a workbook; docs/files.md#encodings). */
  encoding: TextEncodingName | null;
}

/**
 * Messages from the workers to the main thread: `parsed` (the import worker fed every valid value into the bulk
 * insert; the main thread then commits it), `finished` (the workbook parser sent all it read), or a failure the
 * main thread turns into a status.
 */
export type WorkerReply =
  | { type: 'parsed'; counts: FileCounts }
  | { type: 'finished' }
  | { type: 'failed'; status?: 400 | 413; code?: string; message: string };
