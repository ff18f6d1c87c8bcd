/**
 * Runs a collection query that goes through the `$apply` pipeline (apply-compile.ts): the transformations,
 * then `$filter`, `$orderby`, `$select`, `$top`, `$skip` and `$count` on the resulting rows by alias, all in
 * ONE parameterised statement. Also the plan behind every export (export-stream.ts), with or without
 * `$apply`, so exports and JSON agree on which rows a query means.
 *
 * Paging of `$apply` results: like other collections, at most 1000 rows without `$top`, then
 * `@odata.nextLink` with a `$skiptoken` of ours holding the offset (aggregated rows have no key to seek on;
 * each page re-runs the aggregation).
 */
import type { Dialect } from '../db/dialect.ts';
import type { Store } from '../db/store.ts';
import { badRequest } from '../errors.ts';
import { applyTransformations, baseStage, columnsOf, orderOf, selectOf, whereOf, type Stage } from './apply-compile.ts';
import type { CollectionPage, CollectionScope, Row } from './collection-query.ts';
import { compileFilter, compileOrderby, resolveProperty } from './compile-sql.ts';
import { odataSql } from './dialect-sql.ts';
import type { EntityModel, PropertyDef } from './model.ts';
import { NAMESPACE } from './model.ts';
import { QUERY_LIMITS, type QueryOptions } from './query-options.ts';
import { sql, type SqlFragment } from './sql-fragment.ts';

/** What a query means once compiled: the rows' stage, the columns in output order, the context fragment. */
export interface QueryPlan {
  stage: Stage;
  /** Output properties, in `$select` order when given. */
  columns: PropertyDef[];
  /** `callhistory(SurveyId,Calls)` (or the set name when the rows are still the set's entities). */
  fragment: string;
}

/**
 * Compiles the transformations and `$filter`/`$orderby`/`$select` of `options` over a model and scope, in
 * the SQL of `dialect`. `$top`/`$skip` are left to the caller (they differ between a page and an export).
 */
export function planQuery(model: EntityModel, dialect: Dialect, options: QueryOptions, scope?: CollectionScope, now = Date.now()): QueryPlan {
  let stage = applyTransformations(baseStage(model, dialect, scope), options.apply ?? [], now);
  if (options.filter) stage = { ...stage, where: [...stage.where, compileFilter(options.filter, stage.model, dialect, now)] };
  if (options.orderby.length) stage = { ...stage, order: compileOrderby(options.orderby, stage.model) };
  const available = columnsOf(stage);
  const columns = options.select
    ? options.select.map((name) => {
        const p = resolveProperty(stage.model, name, 0, '$select');
        if (!available.includes(p)) throw badRequest(`Property '${name}' cannot be selected here`);
        return p;
      })
    : available;
  const base = model.setName ?? `Collection(${NAMESPACE}.${model.typeName})`;
  const fragment = stage.shapeChanged || options.select ? `${base}(${columns.map((c) => c.name).join(',')})` : base;
  return { stage, columns, fragment };
}

/** `SELECT <columns>[, extra] FROM ... WHERE ... ORDER BY ... LIMIT ? OFFSET ?` of a plan (no limit: undefined). */
export function rowsStatement(plan: QueryPlan, limit: number | undefined, offset: number, extra: SqlFragment[] = []): SqlFragment {
  const { stage } = plan;
  const order = sql`${{ sql: orderOf(stage), params: [] }}${odataSql(stage.dialect).limitOffset(limit, offset)}`;
  return sql`SELECT ${selectOf(plan.columns, extra)} FROM ${stage.from}${whereOf(stage)}${order}`;
}

/** `SELECT count(*) AS n FROM ...` of a plan (before `$top`/`$skip`). */
export function countStatement(plan: QueryPlan): SqlFragment {
  return sql`SELECT count(*) AS n FROM ${plan.stage.from}${whereOf(plan.stage)}`;
}

/**
 * One slice of an export's row count: `{n, last}` = how many of the next `limit` rows there are and the
 * last one's position. With a single non-null key the slice seeks past the previous `last` (each slice
 * costs its own rows); otherwise `last` is an offset the slice skips.
 */
export function countSliceStatement(plan: QueryPlan, after: number | string | undefined, limit: number): SqlFragment {
  const { stage } = plan;
  const key = stage.keys.length === 1 && !stage.keys[0]!.nullable ? stage.keys[0]! : undefined;
  if (!key) {
    const tail: SqlFragment = { sql: ' LIMIT ? OFFSET ?', params: [limit, after ?? 0] };
    const inner = sql`SELECT 1 FROM ${stage.from}${whereOf(stage)}${tail}`;
    return sql`SELECT count(*) AS n, ${{ sql: odataSql(stage.dialect).param('int'), params: [after ?? 0] }} + count(*) AS last FROM (${inner}) AS s`;
  }
  const seek: SqlFragment = after === undefined ? { sql: '', params: [] } : { sql: `${stage.where.length ? ' AND' : ' WHERE'} ${key.column} > ?`, params: [after] };
  const tail: SqlFragment = { sql: ` ORDER BY ${key.column} LIMIT ?`, params: [limit] };
  return sql`SELECT count(*) AS n, max(k) AS last FROM (SELECT ${{ sql: key.column!, params: [] }} AS k FROM ${stage.from}${whereOf(stage)}${seek}${tail}) AS s`;
}

function encodeOffset(offset: number): string {
  return Buffer.from(JSON.stringify({ apply: offset })).toString('base64url');
}

function decodeOffset(token: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const offset = (parsed as { apply?: unknown } | undefined)?.apply;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    throw badRequest('Invalid $skiptoken: use the @odata.nextLink of the previous page with the same $apply');
  }
  return offset;
}

/** The model of result rows: the plan's columns under the context fragment, without key or ETag. */
export function resultModel(model: EntityModel, plan: QueryPlan): EntityModel {
  return { typeName: model.typeName, setName: plan.fragment, key: [], properties: plan.columns };
}

/**
 * Runs a `$apply` query as one page (docs/cati-api.md#apply), with `@odata.count` and a next link like other sets.
 * Compiled here (400s come before any work), run through `store.rows` (the store sends an aggregation
 * over a large table off the event loop: on SQLite to its read worker), rows named by the plan's columns.
 */
export async function queryApply(store: Store, model: EntityModel, options: QueryOptions, scope?: CollectionScope): Promise<{ model: EntityModel; page: CollectionPage }> {
  const plan = planQuery(model, store.dialect, options, scope);
  const offset = options.skiptoken !== undefined ? decodeOffset(options.skiptoken) : (options.skip ?? 0);
  const pageSize = QUERY_LIMITS.pageSize;
  const limit = options.top ?? pageSize + 1;
  const page = rowsStatement(plan, limit, offset);
  const counted = options.count ? countStatement(plan) : undefined;
  const [found, total] = await Promise.all([store.rows(page.sql, page.params), counted ? store.rows(counted.sql, counted.params) : undefined]);
  const names = plan.columns.map((c) => c.name);
  let rows: Row[] = found.map((values) => Object.fromEntries(names.map((name, i) => [name, values[i]])));
  const got = { count: total?.[0]?.[0] as number | undefined };
  let nextSkiptoken: string | undefined;
  if (options.top === undefined && rows.length > pageSize) {
    rows = rows.slice(0, pageSize);
    nextSkiptoken = encodeOffset(offset + pageSize);
  }
  return { model: resultModel(model, plan), page: { rows, count: got.count, nextSkiptoken } };
}
