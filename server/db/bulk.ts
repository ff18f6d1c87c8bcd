/**
 * Bulk inserts for imports and bulk loads on either engine, inside the caller's transaction (so a failed import
 * leaves nothing behind): COPY FROM STDIN on PostgreSQL (pg-copy-streams); multi-row INSERTs of a fixed size
 * (one prepared statement reused) on SQLite, yielding to the event loop between statements.
 *
 * `ignoreConflicts` skips rows that collide with stored ones or with each other. COPY cannot skip, so on
 * PostgreSQL the rows are copied into a staging table dropped at commit and merged with one
 * `INSERT ... SELECT ... ON CONFLICT DO NOTHING`.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { assertPlainIdentifiers } from './identifiers.ts';
import type { PgQueryable } from './pg-store.ts';
import type { Queryable } from './store.ts';

/** Parameters one INSERT binds at most (SQLite allows 32766). */
const MAX_PARAMS = 30_000;
/** Rows one INSERT writes at most. */
const MAX_ROWS_PER_INSERT = 5_000;

export interface InsertManyOptions {
  /** Skip rows that conflict with a unique key (stored before or repeated in `rows`) instead of failing. */
  ignoreConflicts?: boolean;
  /** Runs before each statement (a deadline check may throw there, which rolls the caller's transaction back). */
  beforeChunk?: () => void;
}

const hasCopy = (q: Queryable): q is PgQueryable => typeof (q as Partial<PgQueryable>).copyRows === 'function';

const isSync = <T>(rows: Iterable<T> | AsyncIterable<T>): rows is Iterable<T> => Symbol.iterator in rows;

let staging = 0;

/** Inserts `rows` (values in `columns` order) into `table`; resolves to the number of rows inserted. */
export async function insertMany(
  q: Queryable,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly unknown[]> | AsyncIterable<readonly unknown[]>,
  options: InsertManyOptions = {},
): Promise<number> {
  assertPlainIdentifiers([table, ...columns]);
  const { ignoreConflicts = false, beforeChunk = () => {} } = options;
  const list = columns.join(', ');
  if (hasCopy(q)) {
    beforeChunk();
    if (!ignoreConflicts) return q.copyRows(table, columns, rows);
    if (!q.inTransaction) throw new Error('insertMany with ignoreConflicts needs a transaction on PostgreSQL');
    const stage = `bulk_stage_${process.pid}_${++staging}`;
    await q.exec(`CREATE TEMP TABLE ${stage} ON COMMIT DROP AS SELECT ${list} FROM ${table} WITH NO DATA`);
    await q.copyRows(stage, columns, rows);
    beforeChunk();
    const { changes } = await q.run(`INSERT INTO ${table} (${list}) SELECT ${list} FROM ${stage} ON CONFLICT DO NOTHING`);
    await q.exec(`DROP TABLE ${stage}`);
    return changes;
  }
  const perInsert = Math.max(1, Math.min(MAX_ROWS_PER_INSERT, Math.floor(MAX_PARAMS / columns.length)));
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const sqlFor = (n: number) => `INSERT INTO ${table} (${list}) VALUES ${Array<string>(n).fill(tuple).join(', ')}${ignoreConflicts ? ' ON CONFLICT DO NOTHING' : ''}`;
  const full = sqlFor(perInsert);
  const batch = new Array<unknown>(perInsert * columns.length); // reused: the values are bound before run resolves
  let filled = 0;
  let inBatch = 0;
  let total = 0;
  const flush = async () => {
    beforeChunk();
    total += (await q.run(inBatch === perInsert ? full : sqlFor(inBatch), inBatch === perInsert ? batch : batch.slice(0, filled))).changes;
    filled = 0;
    inBatch = 0;
    await yieldToLoop();
  };
  /** Adds a row to the batch; true when the batch is full. */
  const add = (row: readonly unknown[]) => {
    if (row.length !== columns.length) throw new Error(`insertMany: a row has ${row.length} values for ${columns.length} columns`);
    for (const v of row) batch[filled++] = v;
    return ++inBatch === perInsert;
  };
  // A synchronous source is read with for...of: for await would cost a promise per row (a third of a seed's time in JS).
  if (isSync(rows)) {
    for (const row of rows) if (add(row)) await flush();
  } else {
    for await (const row of rows) if (add(row)) await flush();
  }
  if (inBatch) await flush();
  return total;
}
