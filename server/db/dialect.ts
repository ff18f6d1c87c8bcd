/**
 * Where SQLite's SQL and PostgreSQL's differ, services ask the dialect for the fragment instead of testing the
 * engine. Everything else is written once in the SQL both accept: `?` placeholders (the PostgreSQL store
 * numbers them), `INSERT ... ON CONFLICT ... DO NOTHING/UPDATE`, `RETURNING`, `COALESCE`, `CASE`, `||`.
 * Values stay the same on both: times are epoch milliseconds in integer columns, flags 0/1 integers.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * The values of a JSON array bound as one `?` parameter (a JSON string), as a one-column subquery:
   * `col IN ${d.jsonValues('int')}`, bound with `JSON.stringify(list)`.
   */
  jsonValues(type: 'int' | 'text'): string;
  /** A boolean expression as the integer 0/1 (SQLite's comparisons already are; PostgreSQL's are booleans). */
  int(booleanExpr: string): string;
  /** The larger of two values (SQLite's two-argument max(); PostgreSQL's GREATEST). */
  greatest(a: string, b: string): string;
  /** Case-insensitive equality for ASCII names (SQLite's `= x COLLATE NOCASE`). */
  equalsIgnoreCase(a: string, b: string): string;
  /** `a` equals `b`, NULL equal to NULL (SQLite's `IS`). */
  isSame(a: string, b: string): string;
  /**
   * An ORDER BY term with SQLite's NULL placement on both engines: NULLs first ascending, last descending.
   * `nullable` false leaves the NULL placement out, so PostgreSQL can read a NOT NULL column's index in order.
   */
  orderTerm(expr: string, desc: boolean, nullable?: boolean): string;
  /**
   * The rows of a JSON array of arrays bound as one `?` parameter (`[[1, "a"], [2, "b"]]`), as a subquery whose
   * columns are the inner arrays' elements in order, named and typed by `columns`:
   * `FROM ${d.jsonRows([['id', 'int'], ['name', 'text']])} AS t`, bound with `JSON.stringify(rows)`.
   */
  jsonRows(columns: readonly (readonly [name: string, type: 'int' | 'text'])[]): string;
}

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  jsonValues: () => '(SELECT value FROM json_each(?))',
  int: (e) => `(${e})`,
  greatest: (a, b) => `max(${a}, ${b})`,
  equalsIgnoreCase: (a, b) => `${a} = ${b} COLLATE NOCASE`,
  isSame: (a, b) => `${a} IS ${b}`,
  orderTerm: (e, desc) => `${e} ${desc ? 'DESC' : 'ASC'}`,
  jsonRows: (columns) => `(SELECT ${columns.map(([name], i) => `value ->> ${i} AS ${name}`).join(', ')} FROM json_each(?))`,
};

export const postgresDialect: Dialect = {
  name: 'postgres',
  jsonValues: (type) => `(SELECT v${type === 'int' ? '::bigint' : ''} FROM json_array_elements_text(?::json) v)`,
  int: (e) => `(${e})::int`,
  greatest: (a, b) => `GREATEST(${a}, ${b})`,
  equalsIgnoreCase: (a, b) => `lower(${a}) = lower(${b})`,
  isSame: (a, b) => `${a} IS NOT DISTINCT FROM ${b}`,
  orderTerm: (e, desc, nullable = true) => `${e} ${desc ? 'DESC' : 'ASC'}${nullable ? (desc ? ' NULLS LAST' : ' NULLS FIRST') : ''}`,
  jsonRows: (columns) =>
    `(SELECT ${columns.map(([name, type], i) => (type === 'int' ? `(e.value ->> ${i})::bigint AS ${name}` : `e.value ->> ${i} AS ${name}`)).join(', ')}
      FROM json_array_elements(?::json) AS e(value))`,
};

/** `build` made once per dialect and remembered (e.g. an EntityModel whose FROM holds dialect fragments). */
export function perDialect<T>(build: (d: Dialect) => T): (d: Dialect) => T {
  const made = new Map<Dialect, T>();
  return (d) => {
    let value = made.get(d);
    if (value === undefined) made.set(d, (value = build(d)));
    return value;
  };
}
