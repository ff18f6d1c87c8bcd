/**
 * Bulk inserts for imports on either engine: COPY FROM STDIN on PostgreSQL (pg-copy-streams), multi-row
 * INSERTs of a fixed size (one prepared statement reused) on SQLite. Run it inside the import's transaction
 * (`store.transaction(async (tx) => insertMany(tx, ...))`) so a failed import leaves nothing behind.
 *
 * COPY cannot skip or merge duplicates: to upsert, insertMany into a staging table (`CREATE TEMP TABLE`, dropped
 * at the end — both engines have them) and merge with one `INSERT INTO t SELECT ... FROM staging ON CONFLICT ...`.
 */
import { assertPlainIdentifiers } from './pg-copy.ts';
import type { PgQueryable } from './pg-store.ts';
import type { Queryable } from './store.ts';

/** SQLite binds at most 32766 parameters a statement; rows per INSERT stay well below. */
const MAX_PARAMS = 8000;
const MAX_ROWS_PER_INSERT = 500;

const hasCopy = (q: Queryable): q is PgQueryable => typeof (q as Partial<PgQueryable>).copyRows === 'function';

/** Inserts `rows` (values in `columns` order) into `table`; resolves to the number of rows inserted. */
export async function insertMany(
  q: Queryable,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly unknown[]> | AsyncIterable<readonly unknown[]>,
): Promise<number> {
  assertPlainIdentifiers([table, ...columns]);
  if (hasCopy(q)) return q.copyRows(table, columns, rows);
  const perInsert = Math.max(1, Math.min(MAX_ROWS_PER_INSERT, Math.floor(MAX_PARAMS / columns.length)));
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES `;
  const full = head + Array(perInsert).fill(tuple).join(', ');
  let batch: unknown[] = [];
  let inBatch = 0;
  let total = 0;
  for await (const row of rows) {
    if (row.length !== columns.length) throw new Error(`insertMany: a row has ${row.length} values for ${columns.length} columns`);
    batch.push(...row);
    if (++inBatch === perInsert) {
      total += (await q.run(full, batch)).changes;
      batch = [];
      inBatch = 0;
    }
  }
  if (inBatch) total += (await q.run(head + Array(inBatch).fill(tuple).join(', '), batch)).changes;
  return total;
}
