import type { Actor } from '../audit/audit-log.ts';
import type { EntryKind } from './entries.ts';
import type { FileFormat } from './file-format.ts';

/** What the main thread hands the import worker: plain data only (the upload's temp file, not its bytes). */
export interface ImportJob {
  filePath: string;
  format: FileFormat;
  kind: EntryKind;
  dbFile: string;
  listId: number;
  maxRows: number;
  /** Who imports: the worker writes the audit row (CONTRACT §10) in the import's transaction. */
  actor: Actor;
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
}

/**
 * Messages from the worker: `parsed` (staged; it then waits for the main thread's `'write'` go-ahead), the
 * result, or a failure the main thread turns into a status.
 */
export type WorkerReply =
  | { type: 'parsed' }
  | { type: 'done'; result: ImportOutcome }
  | { type: 'failed'; status?: 400 | 413; code?: string; message: string };
