/**
 * Bulk inserts for imports and bulk loads on either engine, inside the caller's transaction (so a failed import
 * leaves nothing behind): COPY FROM STDIN on PostgreSQL (pg-copy-streams); multi-row INSERTs of a fixed size
 * (one prepared statement reused) on SQLite, yielding to the event loop between statements.
 *
 * `insertReturningIds` (history ingest) answers the new ids in row order: on PostgreSQL they are drawn from the
 * table's sequence in one statement and the rows COPYed with them. `insertNewReturningIds` (blacklist import) does
 * the same for the rows new to the table's unique key.
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

/**
 * Rows read by index (`value(row, column)`): a file import's million rows stay in the few arrays they came in,
 * with no array per row (docs/cati-api.md#blacklist-imports).
 */
export interface RowReader {
  readonly length: number;
  value(row: number, column: number): unknown;
}

/** Rows as arrays of values, or read by index. */
export type RowList = readonly (readonly unknown[])[] | RowReader;

const readerOf = (rows: RowList): RowReader =>
  Array.isArray(rows) ? { length: rows.length, value: (r, c) => (rows as readonly (readonly unknown[])[])[r]![c] } : (rows as RowReader);

/** The row `r` of `rows` as an array of `width` values. */
const rowAt = (rows: RowReader, r: number, width: number): unknown[] => Array.from({ length: width }, (_, c) => rows.value(r, c));

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

/** Rows per INSERT of insertReturningIds on SQLite: 500 calls are 5,000 parameters. */
const ROWS_PER_INSERT = 500;

const insertTexts = new Map<string, string>();

/**
 * `n` new ids from the sequence of `table`'s id column (PostgreSQL), as runs of consecutive ids (first, count) in
 * ascending order: one row unless another writer drew ids at the same time. Read as 10,000 rows, the ids were
 * 12.9 ms of a batch; as runs 10.4 ms, and no rows to parse (/tmp script, 20 rounds each).
 */
const NEXT_IDS = `WITH s AS MATERIALIZED (SELECT pg_get_serial_sequence(?, 'id')::regclass AS seq),
  v AS (SELECT nextval(s.seq) AS id FROM s, generate_series(1, ?::int))
  SELECT min(id), count(*)::int FROM (SELECT id, id - row_number() OVER (ORDER BY id) AS run FROM v) r GROUP BY run ORDER BY 1`;

/**
 * Inserts `rows` (values in `columns` order) into `table`, whose integer key `id` the database assigns, inside the
 * caller's transaction; resolves to the new ids in row order, ascending. PostgreSQL: one statement draws the ids
 * from the table's sequence, then one COPY writes the rows with them (no parsing of thousands of parameters, no
 * RETURNING). SQLite: the ids follow the largest the table holds or held, and go in with the rows, ROWS_PER_INSERT
 * rows or a power of two (the rest) per INSERT, so a few statement texts serve every size. `whileInserting` gets the
 * ids once they are known: on PostgreSQL while the database writes the rows sent (work done there costs no time),
 * on SQLite after the insert.
 */
export async function insertReturningIds(
  q: Queryable,
  table: string,
  columns: readonly string[],
  list: RowList,
  whileInserting?: (ids: readonly number[]) => void,
): Promise<number[]> {
  assertPlainIdentifiers([table, ...columns]);
  const rows = readerOf(list);
  if (rows.length === 0) return [];
  if (hasCopy(q)) {
    // The sequence is looked up once (a MATERIALIZED CTE): as nextval's argument the planner inlined the lookup and
    // ran it for every row, 25-34 ms of catalog reads for a 10,000-call batch against 3-5 ms for the nextvals alone.
    const ids: number[] = [];
    for (const [first, count] of (await q.rows(NEXT_IDS, [table, rows.length])) as [number, number][]) for (let i = 0; i < count; i++) ids.push(first + i);
    const withIds = function* () {
      for (let i = 0; i < rows.length; i++) yield [ids[i], ...rowAt(rows, i, columns.length)];
    };
    const copied = await q.copyRows(table, ['id', ...columns], withIds(), whileInserting && (() => whileInserting(ids)));
    if (copied !== rows.length) throw new Error(`insertReturningIds: ${copied} rows copied of ${rows.length}`);
    return ids;
  }
  const first = await sqliteInsertWithIds(q, table, columns, rows, false);
  const ids = Array.from({ length: rows.length }, (_, i) => first + i);
  whileInserting?.(ids);
  return ids;
}

/**
 * SQLite: inserts `rows` with ids chosen here, as SQLite would: past the largest id the table holds or (AUTOINCREMENT)
 * ever held; resolves to the first of them (row i gets first + i). The caller's transaction holds the write lock, so
 * nobody takes them in between. `skipConflicts`: a row that collides on a unique key is left out (its id unused).
 * INSERT … RETURNING id cost twice the insert itself (13.8 against 6.4 ms for 10,000 blacklist rows: SQLite
 * buffers the returned rows).
 */
async function sqliteInsertWithIds(q: Queryable, table: string, columns: readonly string[], rows: RowReader, skipConflicts: boolean): Promise<number> {
  const last = (await q.value<number>(`SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?), 0), coalesce((SELECT max(id) FROM ${table}), 0))`, [table]))!;
  const width = columns.length + 1;
  for (let i = 0; i < rows.length; ) {
    const left = rows.length - i;
    const size = left >= ROWS_PER_INSERT ? ROWS_PER_INSERT : 2 ** Math.floor(Math.log2(left));
    const key = `${table}(${columns.join(',')}):${size}:${skipConflicts}`;
    let sql = insertTexts.get(key);
    if (sql === undefined) {
      const tuple = `(${Array(width).fill('?').join(', ')})`;
      sql = `INSERT INTO ${table} (id, ${columns.join(', ')}) VALUES ${Array(size).fill(tuple).join(', ')}${skipConflicts ? ' ON CONFLICT DO NOTHING' : ''}`;
      insertTexts.set(key, sql);
    }
    const params = new Array<unknown>(size * width); // filled in a loop: Array.prototype.flat was a tenth of an import
    for (let r = 0; r < size; r++) {
      params[r * width] = last + 1 + i + r;
      for (let c = 1; c < width; c++) params[r * width + c] = rows.value(i + r, c - 1);
    }
    i += size;
    await q.run(sql, params);
  }
  return last + 1;
}

/**
 * Inserts those of `rows` whose `key` columns (the table's only unique key besides `id`; the first one text) match
 * no stored row and no earlier row of `rows`, inside the caller's transaction. Resolves to the rows inserted: their indexes in `rows`
 * and their new ids, both ascending. SQLite: INSERT … ON CONFLICT DO NOTHING with ids chosen beforehand, then one
 * read of that id range tells which went in (no lookup of the keys). PostgreSQL (COPY cannot skip a row): repeats
 * are dropped here and stored keys looked up with one indexed read; the rest go in with insertReturningIds. Inside
 * the transaction no other writer adds a key in between: SQLite holds the write lock, and PostgreSQL's serializable
 * transaction reports a concurrent insert of a key it read as a serialization failure, which the store retries.
 */
export async function insertNewReturningIds(
  q: Queryable,
  table: string,
  columns: readonly string[],
  list: RowList,
  key: readonly string[],
): Promise<{ index: number[]; ids: number[] }> {
  assertPlainIdentifiers([table, ...columns, ...key]);
  const rows = readerOf(list);
  if (rows.length === 0) return { index: [], ids: [] };
  if (!hasCopy(q)) {
    const first = await sqliteInsertWithIds(q, table, columns, rows, true);
    const ids = await q.column<number>(`SELECT id FROM ${table} WHERE id >= ? AND id < ? ORDER BY id`, [first, first + rows.length]);
    return { index: ids.map((id) => id - first), ids };
  }
  const at = key.map((k) => columns.indexOf(k));
  if (at.some((i) => i < 0)) throw new Error(`insertNewReturningIds: key ${key.join(', ')} not among the columns`);
  const keyOf = (r: number) => (at.length === 1 ? String(rows.value(r, at[0]!)) : at.map((c) => String(rows.value(r, c))).join('\u0000'));
  const seen = new Set<string>();
  const fresh: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const k = keyOf(i);
    if (seen.has(k)) continue;
    seen.add(k);
    fresh.push(i);
  }
  const stored = await q.rows(`SELECT ${key.join(', ')} FROM ${table} WHERE ${key[0]} IN ${q.dialect.jsonValues('text')}`, [
    JSON.stringify(fresh.map((i) => rows.value(i, at[0]!))),
  ]);
  const exists = new Set(stored.map((r) => (r.length === 1 ? String(r[0]) : r.map(String).join('\u0000'))));
  const index = exists.size ? fresh.filter((i) => !exists.has(keyOf(i))) : fresh;
  const ids = await insertReturningIds(q, table, columns, { length: index.length, value: (r, c) => rows.value(index[r]!, c) });
  return { index, ids };
}
