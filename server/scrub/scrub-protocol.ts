/**
 * The messages between a scrub job (scrub-runner.ts, main thread) and its parse worker
 * (scrub-parse-worker.ts, no database handle).
 *
 * worker → main: `head` (the first non-blank rows, for the column rules), then — after main's `start` —
 * `count` (data rows), then `progress` while it scrubs, then `end` once both result files are written and
 * closed; or `failed` at any time.
 * main → worker: from the worker's start, the list to match against as packed `entries` chunks (read from
 * the database by the main thread) closed by `entriesEnd`; `start` once the head is seen (among the chunks).
 * The worker keeps the chunks until it has counted the rows, then indexes them as they come, and only
 * once the list is whole reads the rows again, matching and writing each batch itself: no row ever crosses the
 * thread boundary.
 */

import type { TextEncodingName } from '../../common/files/encoding.ts';

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
