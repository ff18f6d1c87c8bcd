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
}

/** The import result (seed §2). */
export interface ImportResult {
  newRows: number;
  duplicatedRows: number;
  invalidRows: number;
}

/**
 * Messages from the worker: `parsed` (staged; it then waits for the main thread's `'write'` go-ahead), the
 * result, or a failure the main thread turns into a status.
 */
export type WorkerReply =
  | { type: 'parsed' }
  | { type: 'done'; result: ImportResult }
  | { type: 'failed'; status?: 400 | 413; code?: string; message: string };
