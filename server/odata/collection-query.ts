/**
 * The one generic collection query: SELECT over model.from with the compiled $filter, an optional scope,
 * $orderby (always ending with the key, so paging is stable), $skip/$top, $count and keyset paging through
 * an opaque `$skiptoken` (a seek on the order keys, never OFFSET, so deep pages stay cheap).
 */
import { badRequest } from '../errors.ts';
import type { Dialect } from '../db/dialect.ts';
import type { ReadHints, Queryable } from '../db/store.ts';
import { compileFilter, compileFilterCached, compileOrderby, resolveProperty, type OrderKey, type SqlFragment } from './compile-sql.ts';
import { keyRangeScan } from './key-ranges.ts';
import type { EntityModel, PropertyDef } from './model.ts';
import { QUERY_LIMITS, type QueryOptions } from './query-options.ts';

/** A row keyed by property name with SQL values (epoch ms, 0/1); `@etag` holds the row version. */
export type Row = Record<string, unknown>;

/** Extra SQL that limits a collection (e.g. members of one group); `?` params only. */
export interface CollectionScope {
  where?: string;
  params?: unknown[];
  /** Values of the `?` placeholders inside the model's FROM (a parameterised subquery); they bind first. */
  fromParams?: unknown[];
}

export interface CollectionPage {
  rows: Row[];
  /**
   * The same rows as read, positionally (`columns` names each position): what the JSON writer serializes
   * without building an object per row. `rows` is then built from it on first use.
   */
  table?: RowTable;
  /** A large `$top`: the next rows after `table.values` (positional, at most STREAM_CHUNK per call, [] when done), for streaming. */
  more?: () => Promise<unknown[][]>;
  count?: number;
  /** Set when more rows follow: the value of `$skiptoken` for the next page. */
  nextSkiptoken?: string;
}

/** Rows as arrays of values, with the name of each position. */
export interface RowTable {
  columns: readonly string[];
  values: unknown[][];
}

/** Positional rows as objects keyed by their column names. */
export function rowObjects(columns: readonly string[], values: unknown[][]): Row[] {
  return values.map((v) => Object.fromEntries(columns.map((c, i) => [c, v[i]])));
}

/** A page over a table whose `rows` (objects) are built only when someone reads them. */
function tablePage(table: RowTable, page: Omit<CollectionPage, 'rows' | 'table'>): CollectionPage {
  let rows: Row[] | undefined;
  return {
    ...page,
    table,
    get rows() {
      return (rows ??= rowObjects(table.columns, table.values));
    },
  };
}

export interface CollectionQueryOptions {
  scope?: CollectionScope;
  /** Adds virtual properties (or rewrites values) of a whole page after the query: one query per page, never per row. */
  postProcess?: (rows: Row[]) => Row[] | Promise<Row[]>;
  pageSize?: number;
  now?: number;
  /** A `$top` above STREAM_CHUNK answers `more` (rows read chunk by chunk) instead of every row at once. */
  stream?: boolean;
}

/**
 * The SELECT list: every non-virtual property under its wire name (or only those in `names`), plus the
 * ETag column.
 */
export function selectList(model: EntityModel, names?: ReadonlySet<string>): string {
  if (!names) {
    let all = fullSelectLists.get(model);
    if (all === undefined) fullSelectLists.set(model, (all = buildSelectList(model)));
    return all;
  }
  return buildSelectList(model, names);
}

const fullSelectLists = new WeakMap<EntityModel, string>();

const fullNames = new WeakMap<EntityModel, string[]>();

/** The names the select list gives its columns, in order. */
function selectedNames(model: EntityModel, names?: ReadonlySet<string>): string[] {
  if (!names) {
    let all = fullNames.get(model);
    if (all === undefined) fullNames.set(model, (all = buildNames(model)));
    return all;
  }
  return buildNames(model, names);
}

/** The stored properties the SELECT list reads (all, or those in `names`), in the model's order. */
const readProperties = (model: EntityModel, names?: ReadonlySet<string>) => model.properties.filter((p) => p.column && !p.virtual && (!names || names.has(p.name)));

function buildNames(model: EntityModel, names?: ReadonlySet<string>): string[] {
  const out = readProperties(model, names).map((p) => p.name);
  if (model.etagColumn) out.push('@etag');
  return out;
}

function buildSelectList(model: EntityModel, names?: ReadonlySet<string>): string {
  const cols = readProperties(model, names).map((p) => `${p.column} AS "${p.name}"`);
  if (model.etagColumn) cols.push(`${model.etagColumn} AS "@etag"`);
  return cols.join(', ');
}

/** What the page query must read under `$select`: the selected, key and order columns (all when a hook reads the rows). */
function selectedColumns(model: EntityModel, select: string[] | undefined, keys: OrderKey[], hook: boolean): Set<string> | undefined {
  if (!select || hook) return undefined;
  return new Set([...select, ...model.key, ...keys.map((k) => k.prop.name)]);
}

function keyProps(model: EntityModel): PropertyDef[] {
  return model.key.map((k) => resolveProperty(model, k, 0, 'key'));
}

function orderKeys(model: EntityModel, options: QueryOptions): OrderKey[] {
  const keys = compileOrderby(options.orderby, model);
  for (const p of keyProps(model)) if (!keys.some((k) => k.prop === p)) keys.push({ prop: p, desc: false });
  return keys;
}

const signature = (keys: OrderKey[]) => keys.map((k) => `${k.prop.name}${k.desc ? '-' : '+'}`).join(',');

function tokenOf(keys: OrderKey[], values: unknown[]): string {
  return Buffer.from(JSON.stringify({ o: signature(keys), v: values })).toString('base64url');
}

function decodeToken(token: string, keys: OrderKey[]): unknown[] {
  const bad = () => badRequest('Invalid $skiptoken: use the @odata.nextLink of the previous page with the same $orderby');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const t = parsed as { o?: unknown; v?: unknown };
  if (!t || typeof t !== 'object' || t.o !== signature(keys) || !Array.isArray(t.v) || t.v.length !== keys.length) throw bad();
  keys.forEach((k, i) => {
    const v = (t.v as unknown[])[i];
    const numeric = k.prop.type !== 'Edm.String';
    const ok = v === null ? k.prop.nullable === true : numeric ? typeof v === 'number' && Number.isFinite(v) : typeof v === 'string';
    if (!ok) throw bad();
  });
  return t.v;
}

/** WHERE condition selecting the rows after `values` in the order (NULLs first ascending, as `orderTerm` sorts). */
function seek(d: Dialect, keys: OrderKey[], values: unknown[]): SqlFragment {
  const ors: string[] = [];
  const params: unknown[] = [];
  for (let i = 0; i < keys.length; i++) {
    const parts: string[] = [];
    const p: unknown[] = [];
    for (let j = 0; j < i; j++) {
      parts.push(d.isSame(`(${keys[j]!.prop.column})`, '?'));
      p.push(values[j]);
    }
    const { prop, desc } = keys[i]!;
    const v = values[i];
    const col = `(${prop.column})`;
    if (v === null) {
      if (desc) continue; // nothing sorts after NULL when descending
      parts.push(`${col} IS NOT NULL`);
    } else if (desc) {
      parts.push(prop.nullable ? `(${col} < ? OR ${col} IS NULL)` : `${col} < ?`);
      p.push(v);
    } else {
      parts.push(`${col} > ?`);
      p.push(v);
    }
    ors.push(`(${parts.join(' AND ')})`);
    params.push(...p);
  }
  if (ors.length === 0) return { sql: '1 = 0', params: [] };
  // A leading range bound on the first key lets SQLite use an index on it.
  const first = keys[0]!;
  const lead = values[0];
  if (lead !== null && !first.prop.nullable) {
    return { sql: `(${first.prop.column}) ${first.desc ? '<=' : '>='} ? AND (${ors.join(' OR ')})`, params: [lead, ...params] };
  }
  return { sql: `(${ors.join(' OR ')})`, params };
}

/** Checks $select names against the model (unknown → 400). */
export function checkSelect(model: EntityModel, select: string[] | undefined): void {
  for (const name of select ?? []) resolveProperty(model, name, 0, '$select');
}

/** The SQL of a collection request: its condition (for $count) and its page condition, FROM and order. */
interface CollectionPlan {
  where: string[];
  params: unknown[];
  from: string;
  pageWhere: string[];
  pageParams: unknown[];
  keys: OrderKey[];
  order: string;
  /** The page read's best plan does not depend on its values (keyRangeScan): it may keep one. */
  read: ReadHints | undefined;
}

function plan(d: Dialect, model: EntityModel, options: QueryOptions, q: CollectionQueryOptions): CollectionPlan {
  if (!model.from) throw new Error(`Entity type ${model.typeName} has no SQL source`);
  checkSelect(model, options.select);
  const now = q.now ?? Date.now();
  const filter = (m: EntityModel) =>
    options.filterText !== undefined ? compileFilterCached(options.filterText, options.filter!, m, d, now) : compileFilter(options.filter!, m, d, now);
  const where: string[] = [];
  const params: unknown[] = [...(q.scope?.fromParams ?? [])];
  if (q.scope?.where) {
    where.push(`(${q.scope.where})`);
    params.push(...(q.scope.params ?? []));
  }
  const f = options.filter ? filter(model) : undefined;
  const keys = orderKeys(model, options);
  // The default key order under a time range: read from the primary key, no temporary B-tree.
  const keyOrder = keys.length === 1 && !keys[0]!.desc && model.key[0] === keys[0]!.prop.name;
  const scan = keyOrder && !q.scope?.fromParams ? keyRangeScan(model, options.filter, d) : undefined;
  // A page of the time range alone keeps one plan, its time column out of any index's reach (keyRangeScan).
  const fixed = scan?.fixedPlan === true && !q.scope?.where;
  const pageWhere = [...where];
  const pageParams = [...params];
  if (f) {
    where.push(f.sql);
    params.push(...f.params);
    const pf = fixed ? filter(scan.filterModel) : f;
    pageWhere.push(pf.sql);
    pageParams.push(...pf.params);
  }
  let from = model.from;
  if (scan) {
    from = scan.from;
    pageWhere.push(scan.where.sql);
    pageParams.push(...scan.where.params);
  }
  if (options.skiptoken !== undefined) {
    const s = seek(d, keys, decodeToken(options.skiptoken, keys));
    pageWhere.push(s.sql);
    pageParams.push(...s.params);
  }
  const order = keys.map((k) => d.orderTerm(`(${k.prop.column})`, k.desc, k.prop.nullable === true)).join(', ');
  return { where, params, from, pageWhere, pageParams, keys, order, read: fixed ? FIXED_PLAN : undefined };
}

const FIXED_PLAN: ReadHints = { fixedPlan: true };

const whereText = (conditions: string[]) => (conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '');

/** Rows a large `$skip` steps over per turn of the event loop. */
const SKIP_STEP = 20_000;

/**
 * Turns a large `$skip` into our `$skiptoken` SKIP_STEP rows at a time, yielding between steps, so no
 * request holds the event loop for a whole deep OFFSET walk (docs/limits.md#event-loop). Mutates `options`; the page
 * query then starts after the token with the remaining (small) `$skip`.
 */
export async function skipInSteps(db: Queryable, model: EntityModel, options: QueryOptions, q: CollectionQueryOptions = {}): Promise<void> {
  for (let i = 0; (options.skip ?? 0) > SKIP_STEP && i < 1_000_000; i++) {
    const p = plan(db.dialect, model, options, q);
    const cols = p.keys.map((k) => `${k.prop.column} AS "${k.prop.name}"`).join(', ');
    const [row] = await db.rows(`SELECT ${cols} FROM ${p.from}${whereText(p.pageWhere)} ORDER BY ${p.order} LIMIT 1 OFFSET ?`, [...p.pageParams, SKIP_STEP - 1]);
    if (!row) return; // fewer rows remain than one step: the page query walks them
    options.skiptoken = tokenOf(p.keys, row);
    options.skip = options.skip! - SKIP_STEP;
    await new Promise((ok) => setImmediate(ok));
  }
}

/** Rows a streamed answer reads per turn of the event loop. */
export const STREAM_CHUNK = 1000;

/**
 * The rows of a large `$top` in chunks of STREAM_CHUNK, each chunk a seek after the last row read (the first
 * one with the request's OFFSET), so no single call reads them all at once.
 */
function chunks(db: Queryable, p: CollectionPlan, text: string, columns: readonly string[], top: number, skip: number): () => Promise<unknown[][]> {
  const at = p.keys.map((k) => columns.indexOf(k.prop.name));
  let left = top;
  let last: unknown[] | undefined;
  return async () => {
    if (left <= 0) return [];
    let rows: unknown[][];
    if (!last) {
      rows = await db.rows(text, [...p.pageParams, Math.min(STREAM_CHUNK, left), skip], p.read);
    } else {
      const after = seek(db.dialect, p.keys, at.map((i) => last![i] ?? null));
      const next = text.replace(' ORDER BY ', `${p.pageWhere.length ? ' AND ' : ' WHERE '}${after.sql} ORDER BY `);
      rows = await db.rows(next, [...p.pageParams, ...after.params, Math.min(STREAM_CHUNK, left), 0], p.read);
    }
    left = rows.length < STREAM_CHUNK ? 0 : left - rows.length;
    last = rows.at(-1);
    return rows;
  };
}

/** Runs the collection query of a model with the request's options; SQL never sees a raw value. */
export async function queryCollection(db: Queryable, model: EntityModel, options: QueryOptions, q: CollectionQueryOptions = {}): Promise<CollectionPage> {
  const p = plan(db.dialect, model, options, q);
  const count = options.count ? ((await db.rows(`SELECT count(*) AS n FROM ${model.from}${whereText(p.where)}`, p.params))[0]![0] as number) : undefined;
  const pageSize = q.pageSize ?? QUERY_LIMITS.pageSize;
  const limit = options.top ?? pageSize + 1;
  if (limit === 0) return { rows: [], count };
  const names = selectedColumns(model, options.select, p.keys, !!q.postProcess);
  const text =
    `SELECT ${selectList(model, names)} FROM ${p.from}` +
    `${whereText(p.pageWhere)} ORDER BY ${p.order} LIMIT ? OFFSET ?`;
  const params = [...p.pageParams, limit, options.skip ?? 0];
  const columns = selectedNames(model, names);
  if (q.stream && options.top !== undefined && options.top > STREAM_CHUNK && !q.postProcess) {
    return tablePage({ columns, values: [] }, { count, more: chunks(db, p, text, columns, options.top, options.skip ?? 0) });
  }
  let values = await db.rows(text, params, p.read);
  let nextSkiptoken: string | undefined;
  if (options.top === undefined && values.length > pageSize) {
    values = values.slice(0, pageSize);
    const last = values[values.length - 1]!;
    nextSkiptoken = tokenOf(p.keys, p.keys.map((k) => last[columns.indexOf(k.prop.name)] ?? null));
  }
  // No hook reads the rows: they stay arrays (better-sqlite3 builds an object per row at twice the cost of the read).
  if (!q.postProcess) return tablePage({ columns, values }, { count, nextSkiptoken });
  const rows = values.length > 0 ? await q.postProcess(rowObjects(columns, values)) : [];
  return { rows, count, nextSkiptoken };
}

/** The SELECT of one entity by key (with an optional scope) and its parameters. */
function entityQuery(model: EntityModel, key: unknown, q: CollectionQueryOptions): SqlFragment {
  if (!model.from) throw new Error(`Entity type ${model.typeName} has no SQL source`);
  const [keyProp] = keyProps(model);
  if (!keyProp) throw new Error(`Entity type ${model.typeName} has no key`);
  const where = [`(${keyProp.column}) = ?`];
  const params: unknown[] = [...(q.scope?.fromParams ?? []), key];
  if (q.scope?.where) {
    where.push(`(${q.scope.where})`);
    params.push(...(q.scope.params ?? []));
  }
  return { sql: `SELECT ${selectList(model)} FROM ${model.from} WHERE ${where.join(' AND ')}`, params };
}

/** Reads one entity by key (with an optional scope); undefined when absent. */
export async function queryEntity(db: Queryable, model: EntityModel, key: unknown, q: CollectionQueryOptions = {}): Promise<Row | undefined> {
  const { sql, params } = entityQuery(model, key, q);
  const row = await db.get<Row>(sql, params);
  return row && q.postProcess ? (await q.postProcess([row]))[0] : row;
}
