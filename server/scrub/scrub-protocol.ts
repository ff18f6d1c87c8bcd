/**
 * The messages of a scrub. A job runs in a process of its own (scrub-job-process.ts, started by scrub-runner.ts):
 * when it ends, all the memory it used goes back to the system. That process has its own database connection and
 * a parse worker thread (scrub-parse-worker.ts) that holds no database handle and reads the untrusted file.
 *
 * Server ↔ job process (ToJob, FromJob): the server sends the database to open, then `start` once it has seen the
 * head; it hears what the worker says (`head`, `count`, `progress`, `failed`), then `end` once the result files are
 * in the database too, or `error` when the job failed for a reason not in the file (the database's).
 *
 * Job process ↔ parse worker (ToWorker, FromWorker): worker → job: `head` (the first non-blank rows, for the
 * column rules), then — after `start` — `count` (data rows), then `progress` while it scrubs, then `end` once both
 * result files are written and closed; or `failed` at any time. job → worker: from the worker's start, the list to
 * match against as packed `entries` chunks (read from the database by the job process) closed by `entriesEnd`;
 * `start` once the head is seen (among the chunks). The worker keeps the chunks until it has counted the rows,
 * then indexes them as they come, and only once the list is whole reads the rows again, matching and writing each
 * batch itself: no row ever crosses the thread boundary.
 */

import type { TextEncodingName } from '../../common/files/encoding.ts';
import type { ListPages } from './list-entries.ts';

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
  /** The workbook sheet the `sheet` form field names (docs/files.md#xlsx). */
  sheet?: string | undefined;
}

/**
 * A chunk of the list, made by the database: one line `id,code,value` per entry, lines joined by `\n`; `code` is
 * the entry's kind (phone: 0 Equal, 1 StartWith; e-mail: 0 address, 1 domain), on list `listId` (e-mail; chunks
 * arrive in the lists' priority order). One string per chunk: no array or string per entry on the main thread,
 * and the worker splits it. A stored value never holds a line break (digits; addresses and domains are stored
 * normalised, without spaces or control characters).
 */
export interface EntriesChunk {
  type: 'entries';
  text: string;
  listId: number;
}

/** main → worker. */
export type ToWorker =
  | {
      type: 'start';
      /** The chosen column (0-based) and whether the first non-blank row is a header. */
      column: number;
      header: boolean;
      /** The files to write (JSON lines) and their first lines (see scrub-runner.ts headerLines). */
      keptPath: string;
      removedPath: string;
      keptHead: string;
      removedHead: string;
      /** Cells a row is padded to before the cells the scrub adds. */
      width: number;
      /** `dedupe=true`: a repeated key after its first row is removed as `duplicate` (its MatchedRow cell added). */
      dedupe: boolean;
      /** `annotate=true` (phone scrubs): kept and removed rows gain Normalized, LineType, Region. */
      annotate: boolean;
    }
  | EntriesChunk
  | { type: 'entriesEnd' };

/** Counts so far (each field the total, not an increment). */
export interface Progress {
  type: 'progress';
  processed: number;
  kept: number;
  removed: number;
  invalid: number;
  /** Of `removed`: the repeats removed by `dedupe`. */
  duplicates: number;
}

export type FromWorker =
  | { type: 'head'; rows: string[][]; encoding: TextEncodingName | null }
  | { type: 'count'; rows: number }
  | Progress
  | { type: 'end' }
  | { type: 'failed'; status: 400 | 413; message: string };

/** The job process's start (its last argument, JSON: nothing secret in it). */
export interface ScrubJobData {
  jobId: string;
  parse: ScrubParseJob;
  /** The parse worker's heap limit (MB). */
  heapMb: number;
  /** The tables the list is read from, in order. */
  list: readonly ListPages[];
}

export type Start = Extract<ToWorker, { type: 'start' }>;

/**
 * server → job process: first the database to open (its connectionUrl, sent over the channel: a PostgreSQL URL
 * holds a password, and a command line is readable by every user of the machine), then `start`.
 */
export type ToJob = { type: 'database'; url: string } | Start;

/** job process → server. `end.files`: the chunks of each result file stored in the database (scrub/job-files.ts). */
export type FromJob =
  | Exclude<FromWorker, { type: 'end' }>
  | { type: 'end'; files: { kept: number; removed: number } }
  | { type: 'error'; message: string };
