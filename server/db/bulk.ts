/**
 * Bulk inserts (the demo, `npm run seed`, imports): multi-row INSERTs of a fixed size, one statement text reused,
 * so a load costs one statement per few hundred rows. Run it inside the load's transaction
 * (`store.transaction(async (tx) => insertMany(tx, ...))`) so a failed load leaves nothing behind.
 * (The PostgreSQL engine's branch adds COPY FROM STDIN here under the same signature.)
 */
import type { Queryable } from './store.ts';

/** SQLite binds at most 32766 parameters a statement; rows per INSERT stay well below. */
const MAX_PARAMS = 8000;
const MAX_ROWS_PER_INSERT = 500;

/** Inserts `rows` (values in `columns` order) into `table`; resolves to the number of rows inserted. */
export async function insertMany(
  q: Queryable,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly unknown[]> | AsyncIterable<readonly unknown[]>,
): Promise<number> {
  for (const name of [table, ...columns]) if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`insertMany: '${name}' is not a plain identifier`);
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
