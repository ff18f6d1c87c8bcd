/**
 * The types of the bulk-insert seam (bulk-insert.ts says how it works) and the helpers both of its ends share.
 */
import type { MessagePort } from 'node:worker_threads';
import { assertPlainIdentifiers } from './identifiers.ts';
import type { Queryable } from './store.ts';

/** What a bulk insert writes into. Names come from code, never from input (checked: plain identifiers). */
export interface BulkTarget {
  table: string;
  /** Columns whose value every row shares (a list's id, the time of the write): their values are given to `commit`. */
  fixed: readonly string[];
  /** The column each fed value fills. A value that collides with a unique key (stored before, or fed twice) is skipped. */
  column: string;
}

export interface BulkOptions {
  /** How long the write may wait for the database's write lock (SQLite's busy_timeout on its own connection). */
  busyTimeoutMs: number;
}

/**
 * What the producing worker thread is handed (post it in a message, with `link.port` in the transfer list):
 * `file` set means "write here, on a connection of your own to this SQLite file"; null, "send the values back".
 */
export interface BulkLink {
  target: BulkTarget;
  file: string | null;
  busyTimeoutMs: number;
  port: MessagePort;
}

/** What `finish` is given: the open transaction and how many of the fed values were new. */
export type BulkFinish<T> = (tx: Queryable, inserted: number) => Promise<T>;

/** The main thread's handle on one bulk insert. */
export interface BulkInsert {
  /** For a worker thread that feeds the values (openBulkFeed); transfer `link.port`. */
  readonly link: BulkLink;
  /** Feeds values from the main thread (small imports); call `end` after the last. */
  add(values: readonly string[]): void;
  end(): void;
  /**
   * Once the feed has ended: writes every fed value in ONE transaction (each row with `fixed`, the values of
   * the target's fixed columns), then `finish` in it; committed when `finish` resolves, rolled back (nothing
   * written) when anything throws. Past `deadline` (epoch ms; checked between steps) it rolls back with an
   * error whose code is BULK_DEADLINE.
   */
  commit<T>(fixed: readonly (string | number)[], finish: BulkFinish<T>, deadline: number): Promise<T>;
  /** Drops whatever was fed (after a failure); idempotent. */
  abort(): void;
}

/** A worker thread's end of a bulk insert. */
export interface BulkFeed {
  /** Takes a batch of values (staged at once on SQLite; sent to the main thread otherwise). */
  add(values: readonly string[]): void;
  /** The last batch was added. */
  end(): void;
}

/** Messages of a feed that sends its values to the main thread (`collectedBulkInsert`). */
export type CollectedMessage = { values: readonly string[] } | { end: true } | { failed: { code?: string; message: string } };

/** The columns a target's rows fill (its fixed ones, then the fed value's), every name checked. */
export function targetColumns(target: BulkTarget): string[] {
  assertPlainIdentifiers([target.table, target.column, ...target.fixed]);
  return [...target.fixed, target.column];
}

/** The error of a write past its deadline (rolled back). */
export function pastDeadline(): Error {
  return Object.assign(new Error('The bulk write took too long; nothing was written'), { code: 'BULK_DEADLINE' });
}
