/**
 * The data layer every service talks to (docs/deployment.md#postgresql): one asynchronous interface, two engines —
 * better-sqlite3 (the embedded default, sqlite-store.ts) and PostgreSQL (pg-store.ts). Services write portable
 * SQL with `?` placeholders; where the engines' SQL differs they ask `q.dialect` for the fragment.
 *
 * Transactions: `store.transaction(async (tx) => ...)` runs its callback in one transaction and hands it `tx`;
 * statements inside use `tx`. A statement that reaches the store itself from inside the callback's async
 * context still runs in that transaction (never on another connection, which could deadlock or miss the
 * transaction's own writes); a transaction opened inside another becomes a savepoint.
 *
 * Reads and the event loop are the Store's business, not the caller's: callers say what they want (`all`, `get`,
 * `value`, `column`, `rows`, or `chunks` for an answer too large to hold) and the Store decides how each statement
 * runs. On PostgreSQL no statement holds Node's event loop. On SQLite statements run on the event loop's thread,
 * so outside a transaction a read whose plan scans a large table from its start, or aggregates rows of one, runs
 * on the read worker instead (db/sqlite/read-pool.ts; db/large-scans.ts decides per statement and caches the
 * decision, test/unit/large-scans.test.ts checks) — whether a client shaped it (`$filter`, `$orderby`, `$apply`,
 * `$count`) or the server wrote it.
 */
import type { BulkInsert, BulkOptions, BulkTarget } from './bulk-target.ts';
import type { ChangeFeed, ChangeFeedOptions, FeedBatch } from './change-feed.ts';
import type { Dialect } from './dialect.ts';

/** Values a statement binds: numbers (epoch ms times, 0/1 flags), strings, null, bigint and Buffers. */
export type Params = readonly unknown[];

/** One row, column name → value. */
export type Row = Record<string, unknown>;

export interface RunResult {
  /** Rows the statement inserted, updated or deleted. */
  changes: number;
}

export type EngineName = 'sqlite' | 'postgres';

/** What a caller knows about a read (Queryable.rows). */
export interface ReadHints {
  /** Its best plan is the same whatever its values: planned once per connection rather than on every run. */
  fixedPlan?: boolean;
}

/** What runs statements: the store itself or an open transaction. */
export interface Queryable {
  readonly engine: EngineName;
  readonly dialect: Dialect;
  /** True inside a transaction (audit rows may only be written there; events only outside). */
  readonly inTransaction: boolean;
  /** Every row as an object. */
  all<T = Row>(sql: string, params?: Params): Promise<T[]>;
  /** The first row, or undefined. */
  get<T = Row>(sql: string, params?: Params): Promise<T | undefined>;
  /** The first column of the first row, or undefined. */
  value<T = unknown>(sql: string, params?: Params): Promise<T | undefined>;
  /** The first column of every row. */
  column<T = unknown>(sql: string, params?: Params): Promise<T[]>;
  /**
   * Every row as an array of values, in the SELECT list's order (for serializers that know the columns).
   * `hints.fixedPlan`: the caller knows the statement's best plan does not depend on its values (a time-bounded page
   * read in key order from the primary key, odata/key-ranges.ts); PostgreSQL then keeps one generic plan for it
   * instead of planning it afresh on every run. SQLite plans a statement once anyway.
   */
  rows(sql: string, params?: Params, hints?: ReadHints): Promise<unknown[][]>;
  /** INSERT/UPDATE/DELETE; use `RETURNING` with `get`/`value` to read generated keys. */
  run(sql: string, params?: Params): Promise<RunResult>;
  /** Several statements without parameters (schema changes). */
  exec(sql: string): Promise<void>;
  /**
   * A number that moves whenever another connection has committed, read without touching a table (SQLite's
   * `PRAGMA data_version`), so a cache can be checked on every request; null where the engine has no such cheap
   * counter (PostgreSQL), and the caller falls back to a check of its own (a small read, or a time bucket).
   */
  changeVersion(): Promise<number | null>;
  /**
   * Publishes a batch of events with the transaction this Queryable is (db/change-feed.ts): delivered to the
   * change feed's subscribers once it commits, never if it rolls back (on PostgreSQL an outbox row written, and
   * NOTIFYed, by this transaction). Nothing happens when no feed is open. Outside a transaction it throws.
   */
  publish(batch: FeedBatch): Promise<void>;
}

export interface Store extends Queryable {
  /** Runs `fn` in one transaction (BEGIN IMMEDIATE on SQLite): committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Reads a large result in chunks of at most `size` rows (arrays of values) without holding the whole answer
   * or the store: a read-only connection of its own on SQLite, a cursor on PostgreSQL. Breaking out of the
   * loop releases it.
   */
  chunks(sql: string, params: Params, size: number): AsyncIterable<unknown[][]>;
  /**
   * Runs a small bookkeeping write (a "last used" stamp) only if it need not wait for a lock: while another
   * connection holds SQLite's write lock (a bulk import), a transaction is open on this store, or a PostgreSQL
   * transaction holds the row, the write is skipped instead of making the request wait. Answers whether it wrote.
   */
  runIfIdle(sql: string, params: Params): Promise<boolean>;
  /**
   * Opens a bulk insert into `target` (db/bulk-insert.ts): values fed in batches, from a worker thread (through
   * `link`) or from the main thread, then written all or nothing in one transaction with what the caller's
   * `finish` writes. The Store decides how: on SQLite the feeding worker stages them on a connection of its own
   * and writes them there; on PostgreSQL they are COPYed in one transaction of this store.
   */
  bulkInsert(target: BulkTarget, options: BulkOptions): BulkInsert;
  /**
   * Opens the store's change feed (once per store): every batch a transaction publishes is delivered to
   * `options.deliver` after its commit, on PostgreSQL those of every server on the database too.
   */
  openChangeFeed(options: ChangeFeedOptions): Promise<ChangeFeed>;
  /**
   * The database file when the engine keeps one on this machine (SQLite: what a backup copies, what worker threads
   * open); undefined on PostgreSQL. The app context carries no path: whatever needs the file asks the Store.
   */
  readonly localFile: string | undefined;
  /** The open change feed, if any. */
  readonly changeFeed: ChangeFeed | undefined;
  /** A short description for logs and /health: `sqlite:/path/cati.sqlite` or `postgres://host/db` (no password). */
  readonly description: string;
  /**
   * What opens this same database from another process (a job's, db/open-store.ts openJobStore): `sqlite:<file>`,
   * or the PostgreSQL URL with its password. Handed over a process's IPC channel only, never logged or put on a
   * command line.
   */
  connectionUrl(): string;
  close(): Promise<void>;
}

/** Thrown by `publish` outside a transaction: an event is written with its change. */
export function publishOutsideTransaction(): Error {
  return new Error('publish outside a transaction: publish a change with the transaction that makes it');
}

/** The database is unreachable or the connection broke: the request gets 503, the store reconnects by itself. */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}
