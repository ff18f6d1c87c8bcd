/**
 * The embedded engine: better-sqlite3 behind the asynchronous Store interface. Statements run synchronously
 * (better-sqlite3's strength: no thread hop, microseconds a statement) and hand back settled promises; each
 * SQL text is prepared once (at most MAX_STATEMENTS kept, oldest dropped first).
 *
 * One connection serves everything, so a transaction holds it: while one is open (its callback may await real
 * I/O), statements from other requests wait until it ends instead of slipping into it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Statement } from 'better-sqlite3';
import { badRequest } from '../errors.ts';
import { closeReadPool, runRead } from './sqlite/read-pool.ts';
import { sqliteBulkInsert } from './sqlite/bulk-remote.ts';
import type { BulkInsert, BulkOptions, BulkTarget } from './bulk-target.ts';
import { asDatabaseError } from './database-error.ts';
import { LocalChangeFeed, PendingBatches, type ChangeFeed, type ChangeFeedOptions, type FeedBatch } from './change-feed.ts';
import { sqliteDialect } from './dialect.ts';
import { LargeScans } from './large-scans.ts';
import { openDatabase, type Db } from './open.ts';
import { publishOutsideTransaction, type Params, type Queryable, type Row, type RunResult, type Store } from './store.ts';

const NO_PARAMS: unknown[] = [];
const MAX_STATEMENTS = 1000;

interface Tx {
  depth: number;
  /** The events the transaction published, delivered after its COMMIT (db/change-feed.ts). */
  pending: PendingBatches;
}

export class SqliteStore implements Store {
  readonly engine = 'sqlite' as const;
  readonly dialect = sqliteDialect;
  readonly description: string;
  private readonly statements = new Map<string, Statement<unknown[]>>();
  private readonly plucked = new Map<string, Statement<unknown[]>>();
  private readonly raws = new Map<string, Statement<unknown[]>>();
  private readonly txContext = new AsyncLocalStorage<Tx>();
  /** Settles when the open transaction ends; null when none is open. */
  private txDone: Promise<void> | null = null;
  /** Settles when the last transaction asked for (waiting for the write lock, or open) has ended. */
  private txTurn: Promise<void> = Promise.resolve();
  /** The connection's busy_timeout (ms): how long a transaction waits for the write lock. */
  private readonly busyTimeoutMs: number;
  private readonly txView: Queryable;
  /** The change feed, once opened: a committed transaction's events go to it. */
  private feed: LocalChangeFeed | undefined;
  /** Which reads scan or aggregate a large table (those outside a transaction go to the read worker). */
  private readonly scans: LargeScans;

  /**
   * `db`: an open (migrated) connection; `file`: its path, for the read-only connections of chunks and the read worker.
   * `readWorker: false`: every read runs on this thread (a job's process, which serves no requests: db/open-store.ts).
   */
  constructor(
    readonly db: Db,
    readonly file: string,
    options: { readWorker?: boolean } = {},
  ) {
    this.description = `sqlite:${file}`;
    this.busyTimeoutMs = Number(db.pragma('busy_timeout', { simple: true })) || 0;
    this.scans = new LargeScans(db, options.readWorker === false ? '' : file);
    const isOpen = () => db.inTransaction;
    // Parameters go to better-sqlite3 as one array (it binds an array's items in order): spreading an import's
    // 2,000 parameters into the call's arguments cost a tenth of a 10,000-number Controller.Import (profile).
    this.txView = {
      engine: 'sqlite',
      dialect: sqliteDialect,
      inTransaction: false,
      all: (s, p) => (this.offLoop(s, p) ? this.readOffLoop(s, p!, 'objects') : this.whenFree(() => this.stmt(this.statements, s).all(p ?? NO_PARAMS))) as never,
      get: (s, p) => (this.offLoop(s, p) ? this.readOffLoop(s, p!, 'objects').then((r) => r[0]) : this.whenFree(() => this.stmt(this.statements, s).get(p ?? NO_PARAMS))) as never,
      value: (s, p) => (this.offLoop(s, p) ? this.readOffLoop(s, p!, 'raw').then((r) => r[0]?.[0]) : this.whenFree(() => this.stmt(this.plucked, s).get(p ?? NO_PARAMS))) as never,
      column: (s, p) => (this.offLoop(s, p) ? this.readOffLoop(s, p!, 'raw').then((r) => r.map((row) => row[0])) : this.whenFree(() => this.stmt(this.plucked, s).all(p ?? NO_PARAMS))) as never,
      rows: (s, p) => (this.offLoop(s, p) ? this.readOffLoop(s, p!, 'raw') : this.whenFree(() => this.stmt(this.raws, s).all(p ?? NO_PARAMS) as unknown[][])),
      run: (s, p) => this.whenFree(() => ({ changes: this.stmt(this.statements, s).run(p ?? NO_PARAMS).changes })),
      exec: (s) => this.whenFree(() => void this.db.exec(s)),
      changeVersion: () => this.whenFree(() => this.stmt(this.plucked, 'PRAGMA data_version').get() as number),
      publish: (batch) => this.publishIn(batch),
    };
    Object.defineProperty(this.txView, 'inTransaction', { get: isOpen });
  }

  connectionUrl(): string {
    return `sqlite:${this.file}`;
  }

  /** Opens (and migrates) the database file. */
  static open(file: string): SqliteStore {
    return new SqliteStore(openDatabase(file), file);
  }

  get inTransaction(): boolean {
    return this.db.inTransaction && this.txContext.getStore() !== undefined;
  }

  private stmt(cache: Map<string, Statement<unknown[]>>, text: string): Statement<unknown[]> {
    let s = cache.get(text);
    if (s) return s;
    if (cache.size >= MAX_STATEMENTS) cache.delete(cache.keys().next().value!);
    try {
      s = this.db.prepare<unknown[]>(text);
    } catch (err) {
      // SQLite refuses some client-built queries at prepare time (expression tree too large): the client's query, a 400.
      if ((err as { code?: unknown }).code === 'SQLITE_ERROR' && /too (large|many|complex)|depth|overflow|variables/i.test((err as Error).message)) {
        throw badRequest('The query is too complex for the database; simplify $filter or $orderby');
      }
      throw err;
    }
    if (cache === this.plucked) s.pluck();
    else if (cache === this.raws) s.raw();
    cache.set(text, s);
    return s;
  }

  /**
   * Runs `work` now when no transaction is open or we are inside it; otherwise after the transaction ends. A failure
   * SQLite gives a code callers act on becomes a DatabaseError (db/database-error.ts).
   */
  private whenFree<T>(work: () => T): Promise<T> {
    if (this.txDone && !this.txContext.getStore()) return this.afterTx(work);
    try {
      return Promise.resolve(work());
    } catch (err) {
      return Promise.reject(asDatabaseError(err) as Error);
    }
  }

  private async afterTx<T>(work: () => T): Promise<T> {
    while (this.txDone && !this.txContext.getStore()) await this.txDone;
    try {
      return work();
    } catch (err) {
      throw asDatabaseError(err);
    }
  }

  all<T = Row>(sql: string, params?: Params): Promise<T[]> {
    return this.txView.all<T>(sql, params);
  }
  get<T = Row>(sql: string, params?: Params): Promise<T | undefined> {
    return this.txView.get<T>(sql, params);
  }
  value<T = unknown>(sql: string, params?: Params): Promise<T | undefined> {
    return this.txView.value<T>(sql, params);
  }
  column<T = unknown>(sql: string, params?: Params): Promise<T[]> {
    return this.txView.column<T>(sql, params);
  }
  rows(sql: string, params?: Params): Promise<unknown[][]> {
    return this.txView.rows(sql, params);
  }

  /**
   * Whether a read runs on the read worker: outside a transaction (whose own writes only this connection sees), a
   * statement that only reads and whose plan scans a large table from its start or aggregates its rows.
   */
  private offLoop(sql: string, params: Params | undefined): boolean {
    if (this.txContext.getStore() !== undefined || !this.scans.offloads(sql, params ?? NO_PARAMS)) return false;
    return this.stmt(this.statements, sql).readonly;
  }

  private async readOffLoop(sql: string, params: Params, mode: 'raw'): Promise<unknown[][]>;
  private async readOffLoop(sql: string, params: Params, mode: 'objects'): Promise<Row[]>;
  private async readOffLoop(sql: string, params: Params, mode: 'raw' | 'objects'): Promise<unknown[]> {
    return (await runRead(this.file, { sql, params: [...(params ?? NO_PARAMS)] }, mode)).rows;
  }
  run(sql: string, params?: Params): Promise<RunResult> {
    return this.txView.run(sql, params);
  }
  exec(sql: string): Promise<void> {
    return this.txView.exec(sql);
  }
  changeVersion(): Promise<number | null> {
    return this.txView.changeVersion();
  }

  publish(batch: FeedBatch): Promise<void> {
    return this.txView.publish(batch);
  }

  private publishIn(batch: FeedBatch): Promise<void> {
    const tx = this.txContext.getStore();
    if (!tx || !this.db.inTransaction) return Promise.reject(publishOutsideTransaction());
    if (this.feed && batch.length > 0) tx.pending.items.push(batch);
    return Promise.resolve();
  }

  get localFile(): string {
    return this.file;
  }

  get changeFeed(): ChangeFeed | undefined {
    return this.feed;
  }

  /** One process holds the file: a committed transaction's events are delivered from memory right after its COMMIT. */
  openChangeFeed(options: ChangeFeedOptions): Promise<ChangeFeed> {
    if (this.feed) return Promise.reject(new Error('The change feed is open already'));
    return Promise.resolve((this.feed = new LocalChangeFeed(options)));
  }

  /** Values fed from a worker thread are staged and written on its own connection (sqlite/bulk-stage.ts). */
  bulkInsert(target: BulkTarget, options: BulkOptions): BulkInsert {
    return sqliteBulkInsert(this, this.file, target, options, (batches) => this.feed?.committed(batches));
  }

  /** The busy timeout is lowered around the statement synchronously, so no other request's statement runs with it. */
  runIfIdle(sql: string, params: Params): Promise<boolean> {
    const db = this.db;
    if (db.inTransaction) return Promise.resolve(false);
    const timeout = db.pragma('busy_timeout', { simple: true }) as number;
    db.pragma('busy_timeout = 0');
    try {
      this.stmt(this.statements, sql).run(...params);
      return Promise.resolve(true);
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY') return Promise.reject(asDatabaseError(err) as Error);
      return Promise.resolve(false);
    } finally {
      db.pragma(`busy_timeout = ${Math.trunc(timeout)}`);
    }
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const outer = this.txContext.getStore();
    if (outer) return this.savepoint(outer, fn);
    // Transactions of this connection take turns; reads go on meanwhile (they wait only for an open transaction).
    const previous = this.txTurn;
    let next!: () => void;
    this.txTurn = new Promise((resolve) => (next = resolve));
    try {
      await previous;
      await this.beginImmediate();
    } catch (err) {
      next();
      throw asDatabaseError(err); // SQLITE_BUSY: another connection kept the write lock past the busy timeout
    }
    let end!: () => void;
    this.txDone = new Promise((resolve) => (end = resolve));
    try {
      try {
        const pending = new PendingBatches();
        const out = await this.txContext.run({ depth: 0, pending }, () => fn(this.txView));
        this.db.exec('COMMIT');
        // In the same synchronous step as COMMIT: no other transaction commits (and delivers) in between.
        if (pending.items.length) this.feed?.committed(pending.items);
        return out;
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw asDatabaseError(err); // COMMIT's own failure (SQLITE_FULL, SQLITE_BUSY) included
      }
    } finally {
      this.txDone = null;
      end();
      next();
    }
  }

  /**
   * BEGIN IMMEDIATE without blocking the event loop: while another connection (an import worker's bulk insert, the
   * CLI) holds the write lock, SQLite's busy handler would sleep inside this thread for up to busy_timeout,
   * stalling every request of the server. So the attempt does not wait (busy_timeout 0 for it) and is retried on
   * timers, 1 ms growing to 25 ms apart, until the connection's busy timeout has passed (then SQLITE_BUSY, a 429).
   */
  private async beginImmediate(): Promise<void> {
    const deadline = Date.now() + this.busyTimeoutMs;
    for (let pause = 1; ; pause = Math.min(pause * 2, 25)) {
      this.db.pragma('busy_timeout = 0');
      try {
        this.db.exec('BEGIN IMMEDIATE');
        return;
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
      } finally {
        this.db.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
      }
      await sleep(pause);
    }
  }

  private async savepoint<T>(outer: Tx, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const name = `sp${outer.depth + 1}`;
    this.db.exec(`SAVEPOINT ${name}`);
    const mark = outer.pending.mark();
    try {
      const out = await this.txContext.run({ depth: outer.depth + 1, pending: outer.pending }, () => fn(this.txView));
      this.db.exec(`RELEASE ${name}`);
      return out;
    } catch (err) {
      outer.pending.dropAfter(mark);
      this.db.exec(`ROLLBACK TO ${name}`);
      this.db.exec(`RELEASE ${name}`);
      throw err;
    }
  }

  async *chunks(sql: string, params: Params, size: number): AsyncIterable<unknown[][]> {
    const reader = openDatabase(this.file, { readonly: true, migrate: false });
    try {
      const it = reader.prepare<unknown[]>(sql).raw().iterate(...params) as IterableIterator<unknown[]>;
      let chunk: unknown[][] = [];
      for (const row of it) {
        chunk.push(row);
        if (chunk.length >= size) {
          yield chunk;
          chunk = [];
        }
      }
      if (chunk.length) yield chunk;
    } finally {
      reader.close();
    }
  }

  async close(): Promise<void> {
    await this.txTurn;
    while (this.txDone) await this.txDone;
    this.statements.clear();
    this.plucked.clear();
    this.raws.clear();
    if (this.db.open) this.db.close();
    await closeReadPool(this.file); // the read worker's connection on the file goes with the store
  }
}
