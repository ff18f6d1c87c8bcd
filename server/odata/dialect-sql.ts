/**
 * The OData engine's SQL where SQLite and PostgreSQL differ (the shared fragments are in server/db/dialect.ts;
 * these are the compiler's own). The SQLite forms are the ones the engine has always emitted; the PostgreSQL
 * forms give the same answers over the same data:
 * - booleans are 0/1 integer columns: SQLite uses them as conditions directly, PostgreSQL compares them with 1
 *   and turns a condition back into 0/1 (`::int`) wherever it becomes a value;
 * - literals bind with a type on PostgreSQL (`?::bigint`), so `? / ?`, `length(?)` and the like resolve;
 * - division and modulo by zero are NULL on both (SQLite's behaviour; PostgreSQL would raise), integer
 *   division truncates toward zero and `mod` takes the dividend's sign on both;
 * - date parts are UTC from epoch-ms integers (SQLite strftime, PostgreSQL exact interval arithmetic);
 * - strings compare in code-point order: the PostgreSQL database is created with the C collation (never a
 *   per-expression `COLLATE "C"`, which would keep the columns' indexes out of use); tolower/toupper fold ASCII
 *   only on both (`COLLATE "C"` on the argument, where no index is involved).
 */
import type { Dialect } from '../db/dialect.ts';
import { sql, type ExprType, type SqlFragment } from './sql-fragment.ts';

/** Date and time parts `year(...)` etc. can take. */
export type DatePart = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second';

/** The compiler's dialect-specific SQL. Operands are fragments; results keep their parameters in order. */
export interface ODataSql {
  /** The boolean constants as conditions. */
  readonly TRUE: string;
  readonly FALSE: string;
  /** A literal's placeholder with the type it binds as. */
  param(type: ExprType): string;
  /** A NULL of a type (PostgreSQL cannot resolve `length(NULL)` or `NULL + NULL` untyped). */
  nullOf(type: ExprType): string;
  /** A 0/1 column as a condition. */
  flag(column: string): string;
  /** A condition that may be NULL, as a definite one (NULL → false). */
  isTrue(cond: SqlFragment): SqlFragment;
  /** A condition as the value 0/1. */
  boolValue(cond: SqlFragment): SqlFragment;
  /** Conditions already are the values 0/1 (SQLite), so a boolean operand compares with another as it is. */
  readonly conditionsAreValues: boolean;
  /**
   * The FROM of a page read in key order over a time-bounded key range (key-ranges.ts): SQLite is told to leave
   * the time index alone (`unindexedFrom`); PostgreSQL's planner chooses by itself (the model's FROM).
   */
  keyRangeFrom(unindexedFrom: string, from: string): string;
  /**
   * The time column of a key-range page that keeps one plan (key-ranges.ts), written so no index on it applies:
   * PostgreSQL's generic plan cannot estimate the time range and might otherwise sort a whole day read from the
   * time index. SQLite's `unindexedFrom` does that already.
   */
  unindexedTime(column: string): string;
  /** `a` is (not) `b`, NULL equal to NULL. */
  same(a: SqlFragment, b: SqlFragment, not: boolean): SqlFragment;
  /** `a / b` (decimal: in floating point); NULL when `b` is 0. */
  divide(a: SqlFragment, b: SqlFragment, decimal: boolean): SqlFragment;
  /** `a mod b` with the dividend's sign; NULL when `b` is 0. */
  modulo(a: SqlFragment, b: SqlFragment, decimal: boolean): SqlFragment;
  /** 1-based position of `b` in `a`, 0 when absent (case-sensitive). */
  position(a: SqlFragment, b: SqlFragment): SqlFragment;
  /** OData substring: from 0-based `start` (negative counts as 0), at most `length` characters (negative: none). */
  substring(a: SqlFragment, start: SqlFragment, length?: SqlFragment): SqlFragment;
  /** ASCII-only case folding. */
  fold(a: SqlFragment, upper: boolean): SqlFragment;
  /** A part of a date-time (epoch ms), a date ('YYYY-MM-DD') or a time of day ('HH:MM:SS.fff'), as an integer. */
  datePart(part: DatePart, value: SqlFragment, type: ExprType): SqlFragment;
  /** The UTC date of a date-time as 'YYYY-MM-DD'. */
  dateOf(value: SqlFragment): SqlFragment;
  /** The UTC time of day of a date-time as 'HH:MM:SS.fff'. */
  timeOf(value: SqlFragment): SqlFragment;
  /** ` LIMIT ? OFFSET ?` (no limit when `limit` is undefined). */
  limitOffset(limit: number | undefined, offset: number): SqlFragment;
}

const STRFTIME: Record<DatePart, string> = { year: '%Y', month: '%m', day: '%d', hour: '%H', minute: '%M', second: '%S' };

/** A date-time, date or time operand as a SQLite time value for strftime. */
const sqliteTime = (v: SqlFragment, type: ExprType): SqlFragment => (type === 'datetime' ? sql`${v} / 1000.0, 'unixepoch'` : v);

const raw = (text: string): SqlFragment => ({ sql: text, params: [] });

const sqliteSql: ODataSql = {
  TRUE: '1',
  FALSE: '0',
  param: () => '?',
  nullOf: () => 'NULL',
  flag: (column) => `(${column})`,
  isTrue: (c) => sql`(${c} IS 1)`,
  boolValue: (c) => c,
  conditionsAreValues: true,
  keyRangeFrom: (unindexedFrom) => unindexedFrom,
  unindexedTime: (column) => column,
  same: (a, b, not) => (not ? sql`(${a} IS NOT ${b})` : sql`(${a} IS ${b})`),
  divide: (a, b, decimal) => (decimal ? sql`(CAST(${a} AS REAL) / ${b})` : sql`(${a} / ${b})`),
  modulo: (a, b, decimal) => (decimal ? sql`(${a} - ${b} * CAST(CAST(${a} AS REAL) / ${b} AS INTEGER))` : sql`(${a} % ${b})`),
  position: (a, b) => sql`instr(${a}, ${b})`,
  substring: (a, start, length) => (length ? sql`substr(${a}, max(${start}, 0) + 1, max(${length}, 0))` : sql`substr(${a}, max(${start}, 0) + 1)`),
  fold: (a, upper) => (upper ? sql`upper(${a})` : sql`lower(${a})`),
  datePart: (part, v, type) => sql`CAST(strftime(${raw(`'${STRFTIME[part]}'`)}, ${sqliteTime(v, type)}) AS INTEGER)`,
  dateOf: (v) => sql`strftime('%Y-%m-%d', ${sqliteTime(v, 'datetime')})`,
  timeOf: (v) => sql`strftime('%H:%M:%f', ${sqliteTime(v, 'datetime')})`,
  limitOffset: (limit, offset) => ({ sql: ' LIMIT ? OFFSET ?', params: [limit ?? -1, offset] }),
};

const PG_TYPES: Partial<Record<ExprType, string>> = { int: 'bigint', decimal: 'float8', datetime: 'bigint' };
const pgType = (type: ExprType) => PG_TYPES[type] ?? 'text';
/** An epoch-ms value as a UTC timestamp, exactly (no floating point). */
const pgTimestamp = (v: SqlFragment): SqlFragment => sql`(TIMESTAMP '1970-01-01' + ${v} * INTERVAL '1 millisecond')`;
/**
 * An integer expression clamped to [0, max] as PostgreSQL's `int` (substr's argument type; SQLite's is 64-bit).
 * NULL stays NULL as with SQLite's max(): int8larger/int8smaller are strict, where GREATEST/LEAST skip NULLs.
 */
const pgInt = (v: SqlFragment, max: number): SqlFragment => sql`CAST(int8smaller(int8larger(${v}, 0), ${raw(String(max))}) AS int)`;

const postgresSql: ODataSql = {
  TRUE: 'TRUE',
  FALSE: 'FALSE',
  param: (type) => `?::${pgType(type)}`,
  nullOf: (type) => `CAST(NULL AS ${pgType(type)})`,
  flag: (column) => `((${column}) = 1)`,
  isTrue: (c) => sql`(${c} IS TRUE)`,
  boolValue: (c) => sql`CAST(${c} AS int)`,
  conditionsAreValues: false,
  keyRangeFrom: (_unindexedFrom, from) => from,
  unindexedTime: (column) => `${column} + 0`,
  same: (a, b, not) => (not ? sql`(${a} IS DISTINCT FROM ${b})` : sql`(${a} IS NOT DISTINCT FROM ${b})`),
  divide: (a, b, decimal) => (decimal ? sql`(CAST(${a} AS float8) / NULLIF(${b}, 0))` : sql`(${a} / NULLIF(${b}, 0))`),
  modulo: (a, b, decimal) =>
    decimal ? sql`(${a} - ${b} * trunc(CAST(${a} AS float8) / NULLIF(${b}, 0)))` : sql`(${a} % NULLIF(${b}, 0))`,
  position: (a, b) => sql`strpos(${a}, ${b})`,
  substring: (a, start, length) => {
    const from = sql`${pgInt(start, 2147483646)} + 1`;
    return length ? sql`substr(${a}, ${from}, ${pgInt(length, 2147483647)})` : sql`substr(${a}, ${from})`;
  },
  fold: (a, upper) => (upper ? sql`upper(${a} COLLATE "C")` : sql`lower(${a} COLLATE "C")`),
  datePart: (part, v, type) => {
    const value = type === 'datetime' ? pgTimestamp(v) : type === 'date' ? sql`CAST(${v} AS date)` : sql`CAST(${v} AS time)`;
    return sql`CAST(floor(extract(${raw(part)} from ${value})) AS int)`;
  },
  dateOf: (v) => sql`to_char(${pgTimestamp(v)}, 'YYYY-MM-DD')`,
  timeOf: (v) => sql`to_char(${pgTimestamp(v)}, 'HH24:MI:SS.MS')`,
  limitOffset: (limit, offset) => (limit === undefined ? { sql: ' OFFSET ?', params: [offset] } : { sql: ' LIMIT ? OFFSET ?', params: [limit, offset] }),
};

/** The compiler's SQL for a store's dialect. */
export function odataSql(d: Dialect): ODataSql {
  return d.name === 'postgres' ? postgresSql : sqliteSql;
}
