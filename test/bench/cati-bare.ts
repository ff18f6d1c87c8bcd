/**
 * The bare baselines of the CATI benchmark on either engine: the same statements the API runs, written by hand
 * and run with the engine's own driver and nothing else (better-sqlite3 prepared statements; `pg` named
 * prepared statements over one connection), plus what the bench reads to set itself up.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { copyRowsOn } from '../../server/db/pg-copy.ts';
import { pgTypes } from '../../server/db/pg-sql.ts';

export const COLUMNS = 'id, time, survey_id, interview_id, interviewer_id, telephone_number, extended_status, duration, waiting_time, call_center_id';
export const INSERT_COLUMNS = COLUMNS.split(', ').slice(1);

/**
 * The one-day page as the API runs it: the time range read in key order from the primary key, bounded by
 * call_id_ranges (migration 014). `?1`/`?2`: the range's start and end (epoch ms). `fixedPlan` (PostgreSQL): as
 * the API writes it when it keeps one plan, the time out of its index's reach (`time + 0`).
 */
export function pageSql(engine: 'sqlite' | 'postgres', fixedPlan = false): string {
  const [a, b, from] = engine === 'sqlite' ? ['@a', '@b', 'calls NOT INDEXED'] : ['$1::bigint', '$2::bigint', 'calls'];
  const range = `FROM call_id_ranges WHERE hour BETWEEN ${a} / 3600000 AND ${b} / 3600000`;
  const time = fixedPlan ? 'time + 0' : 'time';
  return `SELECT ${COLUMNS} FROM ${from} WHERE ${time} >= ${a} AND ${time} < ${b}
    AND id BETWEEN (SELECT COALESCE(min(min_id), 1) ${range}) AND (SELECT COALESCE(max(max_id), 0) ${range}) ORDER BY id LIMIT 100`;
}

/** A bare run of one statement: synchronous on SQLite (no promise in the baseline), a promise on PostgreSQL. */
type Run<A extends unknown[], R> = (...args: A) => R | Promise<R>;

export interface Bare {
  engine: 'sqlite' | 'postgres';
  /** A single value. */
  value<T>(sql: string, params?: unknown[]): Promise<T>;
  page: Run<[a: number, b: number], unknown[]>;
  /** PostgreSQL: the page with one generic plan (plan_cache_mode), as the API runs it (for the figure beside the ratio). */
  pageFixedPlan?: Run<[a: number, b: number], unknown[]>;
  deep: Run<[after: number], unknown[]>;
  count: Run<[a: number, b: number], unknown>;
  plan(a: number, b: number): Promise<string>;
  /** Inserts calls (values in INSERT_COLUMNS order) in one transaction. */
  insert(rows: unknown[][]): Promise<void>;
  /** Removes the calls above `maxId` (leaves a reused database as it was). */
  trim(maxId: number): Promise<void>;
  size(): Promise<number>;
  close(): Promise<void>;
}

/** Bare better-sqlite3 on the bench's SQLite file. */
export function sqliteBare(file: string, size: () => number): Bare {
  const db = new Database(file);
  const pageStmt = db.prepare(pageSql('sqlite'));
  const deepStmt = db.prepare(`SELECT ${COLUMNS} FROM calls WHERE id > ? ORDER BY id LIMIT 1001`);
  const countStmt = db.prepare('SELECT count(*) FROM calls WHERE time >= ? AND time < ?').pluck();
  return {
    engine: 'sqlite',
    value: async <T>(sql: string, params: unknown[] = []) => db.prepare(sql).pluck().get(...params) as T,
    page: (a, b) => pageStmt.all({ a, b }),
    deep: (after) => deepStmt.all(after),
    count: (a, b) => countStmt.get(a, b),
    plan: async (a, b) => (db.prepare(`EXPLAIN QUERY PLAN ${pageSql('sqlite')}`).all({ a, b }) as { detail: string }[]).map((r) => r.detail).join('; '),
    insert: async (rows) => {
      const insert = db.prepare(`INSERT INTO calls (${INSERT_COLUMNS.join(', ')}) VALUES (${INSERT_COLUMNS.map(() => '?').join(', ')})`);
      db.transaction(() => {
        for (const r of rows) insert.run(...r);
      })();
    },
    trim: async (maxId) => void db.prepare('DELETE FROM calls WHERE id > ?').run(maxId),
    size: async () => size(),
    close: async () => void db.close(),
  };
}

/** Bare `pg` on one connection of the bench's PostgreSQL database (named prepared statements, COPY for inserts). */
export async function postgresBare(url: string): Promise<Bare> {
  const client = new pg.Client({ connectionString: url, types: pgTypes });
  const fixed = new pg.Client({ connectionString: url, types: pgTypes, options: '-c plan_cache_mode=force_generic_plan' });
  await Promise.all([client.connect(), fixed.connect()]);
  const query = async (name: string | undefined, text: string, values: unknown[]) => (await client.query({ name, text, values, rowMode: 'array' })).rows as unknown[][];
  const page = pageSql('postgres');
  return {
    engine: 'postgres',
    value: async <T>(sql: string, params: unknown[] = []) => (await query(undefined, sql, params))[0]![0] as T,
    page: (a, b) => query('page', page, [a, b]),
    pageFixedPlan: async (a, b) => (await fixed.query({ name: 'page', text: pageSql('postgres', true), values: [a, b], rowMode: 'array' })).rows as unknown[][],
    deep: (after) => query('deep', `SELECT ${COLUMNS} FROM calls WHERE id > $1 ORDER BY id LIMIT 1001`, [after]),
    count: async (a, b) => (await query('count', 'SELECT count(*) FROM calls WHERE time >= $1 AND time < $2', [a, b]))[0]![0],
    plan: async (a, b) => (await query(undefined, `EXPLAIN (COSTS OFF) ${page}`, [a, b])).map((r) => String(r[0]).trim()).join('; '),
    insert: async (rows) => {
      await client.query('BEGIN');
      await copyRowsOn(client, 'calls', INSERT_COLUMNS, rows);
      await client.query('COMMIT');
    },
    trim: async (maxId) => void (await client.query('DELETE FROM calls WHERE id > $1', [maxId])),
    size: async () => Number((await query(undefined, 'SELECT pg_database_size(current_database())', []))[0]![0]),
    close: async () => void (await Promise.all([client.end(), fixed.end()])),
  };
}
