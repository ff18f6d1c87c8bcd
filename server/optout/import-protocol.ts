import type { MessagePort } from 'node:worker_threads';
import type { Actor } from '../audit/audit-log.ts';
import type { EntryKind } from './entries.ts';
import type { FileFormat } from './file-format.ts';

/**
 * One job the main thread posts to a parse worker (import-parse-worker.ts, no database handle; kept between
 * imports, import-workers.ts): the upload's temp file (not its bytes) and the port to the write worker, where
 * the valid values go.
 */
export interface ParseJob {
  filePath: string;
  format: FileFormat;
  kind: EntryKind;
  maxRows: number;
  port: MessagePort;
}

/** What a write worker (import-worker.ts) is started with: the database it opens once and keeps between imports. */
export interface WriterStart {
  dbFile: string;
}

/** One job the main thread posts to a write worker: the list and the port from the parser. */
export interface WriteJob {
  listId: number;
  kind: EntryKind;
  /** SQLite busy_timeout of the worker's connection: how long the write may wait for the database. */
  busyTimeoutMs: number;
  port: MessagePort;
  /** Who imports: the worker writes the audit row (CONTRACT §10) in the import's transaction. */
  actor: Actor;
}

/** Valid values per batch the parser sends (and the inline path collects). */
export const IMPORT_BATCH = 5000;

/** Parser → writer over their port: batches of valid (normalised) values, then the parser's counts. */
export type ParsedMessage = { values: string[] } | { end: { valid: number; invalid: number; invalidItems: InvalidItem[] } };

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
}

/**
 * Messages from the workers to the main thread: `parsed` (the writer staged everything the parser sent; it
 * then waits for the main thread's `'write'` go-ahead), the result, `finished` (the parser sent all it read
 * and is free for the next import), or a failure the main thread turns into a status.
 */
export type WorkerReply =
  | { type: 'parsed' }
  | { type: 'finished' }
  | { type: 'done'; result: ImportOutcome }
  | { type: 'failed'; status?: 400 | 413; code?: string; message: string };
