/**
 * The PostgreSQL engine (docs/deployment.md#postgresql): the Store over a `pg.Pool`. Statements outside a transaction take any
 * pooled connection; a transaction holds one connection (SERIALIZABLE, so services written for SQLite's one
 * writer at a time stay correct; a serialization failure or deadlock retries the whole callback), and every
 * statement from inside its callback's async context runs on that connection — a nested transaction becomes
 * a savepoint. A lost connection becomes DatabaseUnavailableError (503) and the pool reconnects on the next
 * query; pool errors never crash the process. A connection lost while COMMIT's answer was on its way is not
 * taken for a failure until the database, asked again, says the transaction did not commit (txid_status): a
 * committed write is answered and announced as one. Statements with parameters run as named prepared statements
 * (pg-statements.ts). Reads marked `fixedPlan` run on connections of their own whose prepared statements keep one
 * generic plan: PostgreSQL would otherwise plan them afresh on every run (see `fixedPlanConnections`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import Cursor from 'pg-cursor';
import { copyRowsOn } from './pg-copy.ts';
import { collectedBulkInsert } from './bulk-insert.ts';
import type { BulkInsert, BulkOptions, BulkTarget } from './bulk-target.ts';
import { forgetStatement, isStalePlan, statementName } from './pg-statements.ts';
import { migratePg } from './pg-migrate.ts';
import { asUnavailable, hostPort, isConnectionError, isRetryable, numberPlaceholders, pgTypes, redactUrl } from './pg-sql.ts';
import { postgresDialect } from './dialect.ts';
import type { ChangeFeed, ChangeFeedOptions, FeedBatch } from './change-feed.ts';
import { openPgChangeFeed, type PgChangeFeed } from './pg-change-feed.ts';
import { DatabaseUnavailableError, publishOutsideTransaction, type ReadHints, type Params, type Queryable, type Row, type RunResult, type Store } from './store.ts';

/** How long a transaction whose connection broke during COMMIT waits to learn whether it committed. */
const COMMIT_CHECK_MS = 10_000;

/** Attempts of a transaction that keeps failing on serialization conflicts or deadlocks. */
const TX_ATTEMPTS = 8;

/** The permanent error listener of a pooled connection (see the constructor). */
const ignoreConnectionError = (): void => undefined;

interface Tx {
  client: pg.PoolClient;
  depth: number;
  /** False once the transaction ended (work started inside it that outlives it goes to the pool). */
  open: boolean;
  /** Outbox rows the transaction wrote (db/pg-change-feed.ts), shared with its savepoints. */
  published: number[];
}

/** A Queryable with COPY: the store and its transactions on PostgreSQL. */
/** PostgreSQL's lock_not_available (lock_timeout passed). */
const PG_LOCK_NOT_AVAILABLE = '55P03';

export interface PgQueryable extends Queryable {
  /**
   * Bulk insert through COPY FROM STDIN (inside the current transaction when there is one); resolves to the rows
   * copied. `whileCopying` runs once every row is sent, while the database still writes them (pg-copy.ts).
   */
  copyRows(table: string, columns: readonly string[], rows: Iterable<readonly unknown[]> | AsyncIterable<readonly unknown[]>, whileCopying?: () => void): Promise<number>;
}

export interface PgStoreOptions {
  /** Connections in the pool (default 10); the fixed-plan reads' connections are at most half as many more. */
  max?: number;
  /** The startup options of the fixed-plan reads' connections (default: plan_cache_mode = force_generic_plan). */
  fixedPlanOptions?: string;
  /** How long a query waits for a connection before the database counts as unavailable (default 10 s). */
  connectionTimeoutMs?: number;
  /**
   * Isolation of transactions (default 'serializable': as safe as SQLite's one writer at a time for code written
   * against it; conflicts are retried). Weaker levels suit only callbacks that lock what they read-modify-write.
   */
  isolation?: 'serializable' | 'repeatable read' | 'read committed';
}

export class PgStore implements Store, PgQueryable {
  readonly engine = 'postgres' as const;
  readonly dialect = postgresDialect;
  readonly description: string;
  readonly pool: pg.Pool;
  /**
   * The connections of `fixedPlan` reads, opened on first use: `plan_cache_mode = force_generic_plan`, so each
   * prepared statement is planned once per connection. PostgreSQL's own choice keeps a custom plan, made on
   * every run, whenever the generic plan's estimate is higher: for the one-day page, whose time range it cannot
   * estimate without the values, always (EXPLAIN EXECUTE at 20M calls: cost 1043 generic against 149 custom for
   * the same plan; planning 0.014 against 0.234 ms).
   */
  private fixedPlanConnections: pg.Pool | undefined;
  /** Set once the server (or a proxy before it) refused the fixed-plan connections' setting: the main pool serves those reads. */
  private fixedPlanRefused = false;
  private readonly max: number;
  private readonly connectionTimeoutMs: number;
  private readonly fixedPlanOptions: string;
  private readonly where: string;
  private readonly begin: string;
  private readonly txContext = new AsyncLocalStorage<Tx>();
  private closed = false;
  /** The change feed, once opened: transactions write their events to its outbox. */
  private feed: PgChangeFeed | undefined;

  constructor(
    private readonly url: string,
    options: PgStoreOptions = {},
  ) {
    this.description = redactUrl(url);
    this.where = hostPort(url);
    this.begin = `BEGIN ISOLATION LEVEL ${(options.isolation ?? 'serializable').toUpperCase()}`;
    this.max = options.max ?? 10;
    this.connectionTimeoutMs = options.connectionTimeoutMs ?? 10_000;
    this.fixedPlanOptions = options.fixedPlanOptions ?? '-c plan_cache_mode=force_generic_plan';
    this.pool = this.newPool(this.max);
  }

  private newPool(max: number, settings?: string): pg.Pool {
    const pool = new pg.Pool({
      connectionString: this.url,
      max,
      connectionTimeoutMillis: this.connectionTimeoutMs,
      idleTimeoutMillis: 30_000,
      types: pgTypes,
      application_name: 'cati',
      ...(settings ? { options: settings } : {}),
    });
    // An idle connection that breaks (server restart, network) is dropped by the pool; the next query opens a new one.
    pool.on('error', (err) => console.warn(`PostgreSQL connection lost (${this.description}): ${(err as Error).message}`));
    // Every connection of the pool always has a listener: a FATAL message (pg_terminate_backend, a restart) that
    // reaches one outside a query is an 'error' event, and one without a listener ends the process. What such an
    // error means is handled where the connection is: a query's rejection, or the pool's 'error' above while idle.
    pool.on('connect', (client) => client.on('error', ignoreConnectionError));
    return pool;
  }

  private get fixedPlanPool(): pg.Pool {
    return (this.fixedPlanConnections ??= this.newPool(Math.max(1, Math.ceil(this.max / 2)), this.fixedPlanOptions));
  }

  /** Connects, checks that the server answers (DatabaseUnavailableError naming host:port otherwise), applies migrations. */
  static async open(url: string, options?: PgStoreOptions): Promise<PgStore> {
    const store = new PgStore(url, options);
    try {
      await store.pool.query('SELECT 1');
    } catch (err) {
      // Unreachable, refused, wrong password, no such database: one line naming host:port (never the password).
      await store.pool.end().catch(() => undefined);
      const e = err as { code?: string; message?: string };
      const reason = isConnectionError(err) ? (e.code ?? e.message) : e.message;
      throw new DatabaseUnavailableError(`Cannot connect to PostgreSQL at ${store.where}: ${reason}`, { cause: err });
    }
    try {
      await migratePg(store.pool);
      return store;
    } catch (err) {
      await store.pool.end().catch(() => undefined);
      throw asUnavailable(err, store.where);
    }
  }

  connectionUrl(): string {
    return this.url;
  }

  /** A new unpooled client with the store's settings (the LISTEN connection of the event bridge), named in pg_stat_activity. */
  newClient(applicationName = 'cati'): pg.Client {
    // TCP keepalive: a listener whose peer vanished without a word (a network cut) finds out and reconnects.
    return new pg.Client({ connectionString: this.url, types: pgTypes, application_name: applicationName, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
  }

  get inTransaction(): boolean {
    return this.openTx() !== undefined;
  }

  private openTx(): Tx | undefined {
    const tx = this.txContext.getStore();
    return tx?.open ? tx : undefined;
  }

  /**
   * Runs one statement on `runner`, the open transaction's connection, or a pooled one. A statement with
   * parameters runs as a named prepared statement of its connection (pg-statements.ts).
   */
  private async query(runner: pg.PoolClient | undefined, sql: string, params: Params | undefined, rowMode?: 'array', fixedPlan?: boolean): Promise<pg.QueryResult> {
    const client = runner ?? this.openTx()?.client;
    const text = params && params.length ? numberPlaceholders(sql) : sql;
    const values = params ? [...params] : [];
    if (client) {
      try {
        return await this.statement(client, text, values, rowMode, true);
      } catch (err) {
        throw asUnavailable(err, this.where);
      }
    }
    return this.withClient((c) => this.statement(c, text, values, rowMode, false), fixedPlan && values.length && !this.fixedPlanRefused ? this.fixedPlanPool : this.pool);
  }

  /** `text` on `client`, named when it has parameters; prepared again once if PostgreSQL says its plan went stale. */
  private async statement(client: pg.ClientBase, text: string, values: unknown[], rowMode: 'array' | undefined, inTx: boolean): Promise<pg.QueryResult> {
    const name = values.length ? statementName(client, text, inTx) : undefined;
    try {
      return await client.query({ name, text, values, ...(rowMode ? { rowMode } : {}) });
    } catch (err) {
      if (name === undefined || !isStalePlan(err)) throw err;
      forgetStatement(client, text, inTx);
      if (inTx) throw err; // the transaction is aborted; its next attempt prepares the statement afresh
      return client.query({ text, values, ...(rowMode ? { rowMode } : {}) });
    }
  }

  /** The statements of a Queryable bound to `runner` and its transaction `tx` (undefined: the open transaction's connection or the pool). */
  private view(runner: pg.PoolClient | undefined, inTx: () => boolean, tx?: Tx): PgQueryable {
    const q = (sql: string, p?: Params, mode?: 'array', read?: ReadHints) => this.query(runner, sql, p, mode, read?.fixedPlan);
    const view: PgQueryable = {
      engine: 'postgres',
      dialect: postgresDialect,
      inTransaction: false,
      all: async <T>(s: string, p?: Params) => (await q(s, p)).rows as T[],
      get: async <T>(s: string, p?: Params) => (await q(s, p)).rows[0] as T | undefined,
      value: async <T>(s: string, p?: Params) => (await q(s, p, 'array')).rows[0]?.[0] as T | undefined,
      column: async <T>(s: string, p?: Params) => ((await q(s, p, 'array')).rows as unknown[][]).map((r) => r[0] as T),
      rows: async (s, p, read) => (await q(s, p, 'array', read)).rows as unknown[][], // a query never holds Node's event loop here
      run: async (s, p) => ({ changes: (await q(s, p)).rowCount ?? 0 }),
      exec: async (s) => void (await q(s, undefined)),
      changeVersion: () => Promise.resolve(null), // no counter as cheap as SQLite's data_version
      copyRows: (table, columns, rows, whileCopying) => this.copy(runner, table, columns, rows, whileCopying),
      publish: (batch) => this.publishIn(view, tx ?? this.openTx(), batch),
    };
    Object.defineProperty(view, 'inTransaction', { get: inTx });
    return view;
  }

  private readonly storeView = this.view(undefined, () => this.inTransaction);

  all<T = Row>(sql: string, params?: Params): Promise<T[]> {
    return this.storeView.all<T>(sql, params);
  }
  get<T = Row>(sql: string, params?: Params): Promise<T | undefined> {
    return this.storeView.get<T>(sql, params);
  }
  value<T = unknown>(sql: string, params?: Params): Promise<T | undefined> {
    return this.storeView.value<T>(sql, params);
  }
  column<T = unknown>(sql: string, params?: Params): Promise<T[]> {
    return this.storeView.column<T>(sql, params);
  }
  rows(sql: string, params?: Params, hints?: ReadHints): Promise<unknown[][]> {
    return this.storeView.rows(sql, params, hints);
  }
  run(sql: string, params?: Params): Promise<RunResult> {
    return this.storeView.run(sql, params);
  }
  exec(sql: string): Promise<void> {
    return this.storeView.exec(sql);
  }
  changeVersion(): Promise<number | null> {
    return this.storeView.changeVersion();
  }
  publish(batch: FeedBatch): Promise<void> {
    return this.storeView.publish(batch);
  }

  /** Writes `batch` to the outbox in the transaction `tx` (`q` runs its statements). */
  private async publishIn(q: Queryable, tx: Tx | undefined, batch: FeedBatch): Promise<void> {
    if (!tx?.open) throw publishOutsideTransaction();
    if (!this.feed || batch.length === 0) return;
    tx.published.push(await this.feed.write(q, batch));
  }

  /** No file on this machine: the database is the server's. */
  readonly localFile = undefined;

  get changeFeed(): ChangeFeed | undefined {
    return this.feed;
  }

  /** Starts listening (db/pg-change-feed.ts); from then on every transaction's events go through the outbox. */
  async openChangeFeed(options: ChangeFeedOptions): Promise<ChangeFeed> {
    if (this.feed) throw new Error('The change feed is open already');
    return (this.feed = await openPgChangeFeed(this, options));
  }

  /** The values come to this thread and are COPYed in one transaction (collectedBulkInsert). */
  bulkInsert(target: BulkTarget, options: BulkOptions): BulkInsert {
    return collectedBulkInsert(this, target, options);
  }

  async runIfIdle(sql: string, params: Params): Promise<boolean> {
    try {
      await this.transaction(async (tx) => {
        await tx.exec("SET LOCAL lock_timeout = '100ms'");
        await tx.run(sql, params);
      });
      return true;
    } catch (err) {
      if ((err as { code?: string }).code !== PG_LOCK_NOT_AVAILABLE) throw err;
      return false;
    }
  }

  /** COPY FROM STDIN into `table` (inside the current transaction when called in one); resolves to the rows copied. */
  copyRows(table: string, columns: readonly string[], rows: Iterable<readonly unknown[]> | AsyncIterable<readonly unknown[]>, whileCopying?: () => void): Promise<number> {
    return this.storeView.copyRows(table, columns, rows, whileCopying);
  }

  private async copy(runner: pg.PoolClient | undefined, table: string, columns: readonly string[], rows: Iterable<readonly unknown[]> | AsyncIterable<readonly unknown[]>, whileCopying?: () => void): Promise<number> {
    const on = runner ?? this.openTx()?.client;
    if (on) return copyRowsOn(on, table, columns, rows, whileCopying).catch((err: unknown) => Promise.reject(asUnavailable(err, this.where)));
    return this.withClient((client) => copyRowsOn(client, table, columns, rows, whileCopying));
  }

  /** Runs `work` on a connection of its own, released (destroyed when it broke) afterwards. */
  private async withClient<T>(work: (client: pg.PoolClient) => Promise<T>, pool = this.pool): Promise<T> {
    const client = await this.checkout(pool);
    let broken: Error | undefined;
    try {
      return await work(client);
    } catch (err) {
      if (isConnectionError(err)) broken = err as Error;
      throw asUnavailable(err, this.where);
    } finally {
      client.release(broken);
    }
  }

  private async checkout(pool = this.pool): Promise<pg.PoolClient> {
    if (this.closed) throw new DatabaseUnavailableError('The database store is closed');
    try {
      return await pool.connect();
    } catch (err) {
      if (pool === this.pool) throw asUnavailable(err, this.where);
      // No fixed-plan connection: the read runs on the main pool (with PostgreSQL's own plan choice), or fails as
      // that one fails. A server or proxy that refuses the setting itself (PgBouncer without `options` among its
      // ignore_startup_parameters; an unknown parameter) is not asked again.
      const client = await this.checkout();
      const code = (err as { code?: unknown }).code;
      if (!this.fixedPlanRefused && (code === '08P01' || code === '42704' || code === '22023')) {
        this.fixedPlanRefused = true;
        console.warn(`PostgreSQL refused connections that keep one plan per statement (${this.description}): ${(err as Error).message}; those reads plan each run`);
      }
      return client;
    }
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const outer = this.openTx();
    if (outer) return this.savepoint(outer, fn);
    for (let attempt = 1; ; attempt++) {
      try {
        const [out, published] = await this.withClient((client) => this.attempt(client, fn));
        // Its events are on every server's feed now (NOTIFY is delivered at commit); answered once this server has them.
        if (published.length) await this.feed?.committed(published);
        return out;
      } catch (err) {
        const cause = (err as { cause?: unknown }).cause ?? err;
        if (!isRetryable(err) && !isRetryable(cause)) throw err;
        if (attempt >= TX_ATTEMPTS) throw asUnavailable(err, this.where); // still conflicting: `busy`
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** attempt));
      }
    }
  }

  /** One attempt of a transaction on `client`: its result and the outbox rows it wrote. */
  private async attempt<T>(client: pg.PoolClient, fn: (tx: Queryable) => Promise<T>): Promise<[T, number[]]> {
    const tx: Tx = { client, depth: 0, open: true, published: [] };
    await client.query(this.begin);
    let committed = false;
    let out: T;
    try {
      out = await this.txContext.run(tx, () => fn(this.view(client, () => tx.open, tx)));
      // The transaction's id, if it wrote: should the connection break while COMMIT's answer is on its way, the
      // database still knows whether it committed (a committed write must be answered, and announced, as one).
      const xid = (await client.query<{ xid: string | null }>('SELECT txid_current_if_assigned()::text AS xid')).rows[0]!.xid;
      try {
        await client.query('COMMIT');
      } catch (err) {
        if (xid === null || !isConnectionError(err) || !(await this.committed(xid))) throw err;
        console.warn(`PostgreSQL connection lost as a transaction committed (${this.description}); it did commit`);
      }
      committed = true;
    } catch (err) {
      if (!isConnectionError(err)) await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      tx.open = false;
      if (!committed && tx.published.length) this.feed?.failed(tx.published);
    }
    return [out, tx.published];
  }

  /**
   * Whether transaction `xid` committed, asked on another connection after its own broke during COMMIT: retried
   * while the database is away or the old backend still ends the transaction, for at most COMMIT_CHECK_MS; false
   * when it aborted or the answer did not come in time (the caller then reports the database unavailable).
   */
  private async committed(xid: string): Promise<boolean> {
    const deadline = Date.now() + COMMIT_CHECK_MS;
    for (let pause = 100; ; pause = Math.min(pause * 2, 1000)) {
      try {
        const status = (await this.pool.query<{ s: string | null }>('SELECT txid_status($1::bigint) AS s', [xid])).rows[0]!.s;
        if (status === 'committed') return true;
        if (status !== 'in progress') return false;
      } catch {
        // the database is still away
      }
      if (this.closed || Date.now() + pause > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  private async savepoint<T>(outer: Tx, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const name = `sp${outer.depth + 1}`;
    const { client } = outer;
    await client.query(`SAVEPOINT ${name}`);
    const inner: Tx = { client, depth: outer.depth + 1, open: true, published: outer.published };
    const mark = outer.published.length;
    try {
      const out = await this.txContext.run(inner, () => fn(this.view(client, () => outer.open, inner)));
      await client.query(`RELEASE ${name}`);
      return out;
    } catch (err) {
      this.feed?.failed(outer.published.splice(mark)); // rolled back with the savepoint (its NOTIFY too)
      if (!isConnectionError(err)) {
        await client.query(`ROLLBACK TO ${name}`);
        await client.query(`RELEASE ${name}`);
      }
      throw err;
    } finally {
      inner.open = false;
    }
  }

  async *chunks(sql: string, params: Params, size: number): AsyncIterable<unknown[][]> {
    const client = await this.checkout();
    let broken: Error | undefined;
    const cursor = client.query(new Cursor(numberPlaceholders(sql), [...params], { rowMode: 'array', types: pgTypes }));
    try {
      for (;;) {
        let chunk: unknown[][];
        try {
          chunk = (await cursor.read(size)) as unknown[][];
        } catch (err) {
          if (isConnectionError(err)) broken = err as Error;
          throw asUnavailable(err, this.where);
        }
        if (chunk.length === 0) break;
        yield chunk;
        if (chunk.length < size) break;
      }
    } finally {
      if (!broken) await cursor.close().catch((err: unknown) => void (broken = err as Error));
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.feed?.close();
    await Promise.all([this.pool.end(), this.fixedPlanConnections?.end()]);
  }
}
