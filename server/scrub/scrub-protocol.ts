/**
 * The messages between a scrub job (scrub-runner.ts, main thread) and its parse worker
 * (scrub-parse-worker.ts, no database handle).
 *
 * worker → main: `head` (the first non-blank rows, for the column rules), then — after main's `start` —
 * `count` (data rows), then `batch`es (one per `more` credit), then `end`; or `failed` at any time.
 */

/** What is scrubbed: telephone numbers (CATI blacklist) or e-mail addresses (opt-out lists). */
export type ScrubKind = 'phone' | 'email';

/** A file as the format check saw it. */
export type ScrubFormat = 'text' | 'tsv' | 'xlsx';

/** workerData of the parse worker. */
export interface ScrubParseJob {
  filePath: string;
  format: ScrubFormat;
  kind: ScrubKind;
  /** Phone region for the numbers (null: digits only). */
  region: string | null;
  maxRows: number;
  /** How many non-blank rows `head` carries. */
  headRows: number;
}

/** main → worker: the chosen column (0-based) and whether the first non-blank row is a header; then credits. */
export type ToWorker = { type: 'start'; column: number; header: boolean } | { type: 'more' };

/**
 * One batch: each data row as a JSON array of its cells (`lines`), and its key — the normalised number or
 * address the worker computed with the list's own functions — or null when it is invalid.
 */
export interface RowBatch {
  type: 'batch';
  lines: string[];
  keys: (string | null)[];
}

export type FromWorker =
  | { type: 'head'; rows: string[][] }
  | { type: 'count'; rows: number }
  | RowBatch
  | { type: 'end' }
  | { type: 'failed'; status: 400 | 413; message: string };
