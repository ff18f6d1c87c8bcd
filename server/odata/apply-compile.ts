/**
 * Compiles `$apply` transformations (apply-parse.ts) into nested parameterised SQL over an EntityModel:
 * a `Stage` is a FROM with WHERE conditions and a model whose properties are SQL expressions over it.
 * `filter` adds a condition; `compute`, `groupby`/`aggregate`, `top` and `skip` wrap the stage in a
 * subquery (`(SELECT ... GROUP BY ...) AS aN`) whose output columns are the next stage's properties.
 * SQLite flattens the plain projections, so leading filters still use the indexes of the base table.
 * The SQL is the dialect's of the stage (SQLite or PostgreSQL; dialect-sql.ts for the parts that differ).
 * Aggregates follow OData: `$count` counts rows, `countdistinct` non-null distinct values, `sum`, `min`,
 * `max` and `average` ignore nulls and are null over no value.
 */
import type { Dialect } from '../db/dialect.ts';
import { badRequest } from '../errors.ts';
import type { AggregateItem, Transformation } from './apply-parse.ts';
import { odataSql } from './dialect-sql.ts';
import { compileExpression, compileFilter, compileOrderby, resolveProperty, type OrderKey } from './compile-sql.ts';
import type { EdmType, EntityModel, PropertyDef } from './model.ts';
import type { FilterNode } from './parse-filter.ts';
import { NUMERIC, sql, typeName, type SqlFragment, type Typed } from './sql-fragment.ts';

/** A query under construction: `SELECT <model's columns> FROM from WHERE where`. */
export interface Stage {
  /** The SQL dialect of the store the query will run on. */
  dialect: Dialect;
  model: EntityModel;
  from: SqlFragment;
  where: SqlFragment[];
  /** The order of an `orderby` transformation, kept for later `top`/`skip` and the final ORDER BY. */
  order: OrderKey[];
  /** Properties whose values identify a row (the key, then the grouping properties); the tie-breaker. */
  keys: PropertyDef[];
  /** True once the rows are no longer entities of the set (compute, groupby, aggregate). */
  shapeChanged: boolean;
  /** Counter of subquery aliases. */
  depth: number;
}

const OPTION = '$apply';
const EMPTY: SqlFragment = { sql: '', params: [] };

/** The stage of a set before any transformation: its FROM, its scope, its own columns. */
export function baseStage(model: EntityModel, dialect: Dialect, scope: { where?: string; params?: unknown[]; fromParams?: unknown[] } = {}): Stage {
  if (!model.from) throw new Error(`Entity type ${model.typeName} has no SQL source`);
  const keys = model.key.map((k) => model.properties.find((p) => p.name === k)!).filter(Boolean);
  return {
    dialect,
    model,
    from: { sql: model.from, params: scope.fromParams ?? [] },
    where: scope.where ? [{ sql: `(${scope.where})`, params: scope.params ?? [] }] : [],
    order: [],
    keys,
    shapeChanged: false,
    depth: 0,
  };
}

/** The SQL-backed properties of a stage (virtual ones such as Variables are left out). */
export const columnsOf = (stage: Stage): PropertyDef[] => stage.model.properties.filter((p) => p.column && !p.virtual && !p.writeOnly);

/** `col AS "Name", ...` of the given properties. */
export function selectOf(props: PropertyDef[], extra: SqlFragment[] = []): SqlFragment {
  const parts: SqlFragment[] = [...props.map((p) => ({ sql: `${p.column} AS "${p.name}"`, params: [] })), ...extra];
  return parts.reduce((acc, f) => (acc.sql ? sql`${acc}, ${f}` : f), EMPTY);
}

/** ` WHERE a AND b` (or nothing). */
export function whereOf(stage: Stage): SqlFragment {
  if (stage.where.length === 0) return EMPTY;
  return stage.where.reduce((acc, f) => (acc.sql ? sql`${acc} AND ${f}` : sql` WHERE ${f}`), EMPTY);
}

/**
 * ` ORDER BY ...` over the stage's columns: its order, then its keys as tie-breakers (NULLs first ascending
 * on both engines).
 */
export function orderOf(stage: Stage): string {
  const all = [...stage.order];
  for (const k of stage.keys) if (!all.some((o) => o.prop.name === k.name)) all.push({ prop: k, desc: false });
  return all.length ? ` ORDER BY ${all.map((k) => stage.dialect.orderTerm(k.prop.column!, k.desc)).join(', ')}` : '';
}

/**
 * Wraps `SELECT <select> FROM stage ... <tail>` as the FROM of a new stage whose properties are `props`
 * renamed to the subquery's output columns.
 */
function wrap(stage: Stage, props: PropertyDef[], select: SqlFragment, tail: SqlFragment, patch: Partial<Stage> = {}): Stage {
  const alias = `a${stage.depth + 1}`;
  const inner = sql`(SELECT ${select} FROM ${stage.from}${whereOf(stage)}${tail}) AS `;
  const moved = new Map(props.map((p) => [p.name, { ...p, column: `${alias}."${p.name}"` }]));
  const remap = (p: PropertyDef) => moved.get(p.name)!;
  return {
    dialect: stage.dialect,
    model: { ...stage.model, properties: [...moved.values()], etagColumn: undefined },
    from: { sql: inner.sql + alias, params: inner.params },
    where: [],
    order: (patch.order ?? stage.order).filter((o) => moved.has(o.prop.name)).map((o) => ({ prop: remap(o.prop), desc: o.desc })),
    keys: (patch.keys ?? stage.keys).filter((k) => moved.has(k.name)).map(remap),
    shapeChanged: patch.shapeChanged ?? stage.shapeChanged,
    depth: stage.depth + 1,
  };
}

function edmTypeOf(t: Typed, node: FilterNode): EdmType {
  switch (t.type) {
    case 'int':
      return node.kind === 'call' ? 'Edm.Int32' : 'Edm.Int64';
    case 'decimal':
      return 'Edm.Decimal';
    case 'boolean':
      return 'Edm.Boolean';
    case 'datetime':
      return 'Edm.DateTimeOffset';
    case 'date':
      return 'Edm.Date';
    case 'time':
      return 'Edm.TimeOfDay';
    default:
      return 'Edm.String';
  }
}

/** The property an expression's value becomes under an alias (a plain property keeps its enum and type). */
function aliasProperty(alias: string, t: Typed, node: FilterNode, nullable: boolean): PropertyDef {
  if (t.prop) return { ...t.prop, name: alias, nullable, computed: undefined };
  return { name: alias, type: edmTypeOf(t, node), nullable };
}

function checkAlias(stage: Stage, taken: Set<string>, alias: string, pos: number): void {
  if (stage.model.properties.some((p) => p.name === alias) || taken.has(alias)) {
    throw badRequest(`The alias '${alias}' is already a property name in ${OPTION} at position ${pos}`);
  }
  taken.add(alias);
}

/** An aggregate as a SQL expression and the property of its result. */
function aggregateColumn(stage: Stage, item: AggregateItem, now: number): { prop: PropertyDef; frag: SqlFragment } {
  if (!item.expr) return { prop: { name: item.alias, type: 'Edm.Int64' }, frag: { sql: `count(*) AS "${item.alias}"`, params: [] } };
  const t = compileExpression(item.expr, stage.model, stage.dialect, now, OPTION);
  const method = item.method!;
  if ((method === 'sum' || method === 'average') && !NUMERIC.has(t.type)) {
    throw badRequest(`Cannot ${method === 'sum' ? 'sum' : 'average'} ${t.prop ? `the property '${t.prop.name}' of type ` : ''}${typeName(t)} in ${OPTION} at position ${item.pos}`);
  }
  const as = (fn: string): SqlFragment => ({ sql: `${fn}(${t.sql}) AS "${item.alias}"`, params: t.params });
  switch (method) {
    case 'sum':
      return { prop: { name: item.alias, type: t.type === 'int' ? 'Edm.Int64' : 'Edm.Decimal', nullable: true }, frag: as('sum') };
    case 'average':
      return { prop: { name: item.alias, type: 'Edm.Decimal', nullable: true }, frag: as('avg') };
    case 'countdistinct':
      return { prop: { name: item.alias, type: 'Edm.Int64' }, frag: { sql: `count(DISTINCT ${t.sql}) AS "${item.alias}"`, params: t.params } };
    default:
      return { prop: aliasProperty(item.alias, t, item.expr, true), frag: as(method) };
  }
}

/** A property `groupby` may use: scalar and selected from SQL (not e.g. Variables), else 400 naming it. */
function groupingProperty(stage: Stage, name: string, pos: number): PropertyDef {
  const p = resolveProperty(stage.model, name, pos, OPTION);
  if (!p.column || p.virtual || p.collection) throw badRequest(`Property '${p.name}' cannot be grouped by in ${OPTION} at position ${pos}`);
  return p;
}

function groupby(stage: Stage, properties: PropertyDef[], items: AggregateItem[], now: number): Stage {
  const taken = new Set<string>();
  const aggregates = items.map((item) => {
    checkAlias(stage, taken, item.alias, item.pos);
    return aggregateColumn(stage, item, now);
  });
  const group = properties.length ? { sql: ` GROUP BY ${properties.map((p) => p.column).join(', ')}`, params: [] } : EMPTY;
  const props = [...properties, ...aggregates.map((a) => a.prop)];
  return wrap(stage, props, selectOf(properties, aggregates.map((a) => a.frag)), group, { order: [], keys: properties, shapeChanged: true });
}

function limit(stage: Stage, kind: 'top' | 'skip', count: number): Stage {
  const range = odataSql(stage.dialect).limitOffset(kind === 'top' ? count : undefined, kind === 'top' ? 0 : count);
  const tail: SqlFragment = { sql: `${orderOf(stage)}${range.sql}`, params: range.params };
  return wrap(stage, columnsOf(stage), selectOf(columnsOf(stage)), tail);
}

/** Runs one transformation on a stage. */
function transform(stage: Stage, t: Transformation, now: number): Stage {
  switch (t.kind) {
    case 'identity':
      return stage;
    case 'filter':
      return { ...stage, where: [...stage.where, compileFilter(t.expr, stage.model, stage.dialect, now, OPTION)] };
    case 'compute': {
      const taken = new Set<string>();
      const computed = t.items.map((item) => {
        checkAlias(stage, taken, item.alias, item.pos);
        const v = compileExpression(item.expr, stage.model, stage.dialect, now, OPTION);
        return { prop: aliasProperty(item.alias, v, item.expr, v.nullable), frag: { sql: `${v.sql} AS "${item.alias}"`, params: v.params } };
      });
      const own = columnsOf(stage);
      return wrap(stage, [...own, ...computed.map((c) => c.prop)], selectOf(own, computed.map((c) => c.frag)), EMPTY, { shapeChanged: true });
    }
    case 'groupby': {
      const props = t.properties.map((g) => groupingProperty(stage, g.name, g.pos));
      props.forEach((p, i) => {
        if (props.indexOf(p) !== i) throw badRequest(`Property '${p.name}' appears twice in groupby in ${OPTION} at position ${t.properties[i]!.pos}`);
      });
      return groupby(stage, props, t.aggregate ?? [], now);
    }
    case 'aggregate':
      return groupby(stage, [], t.items, now);
    case 'orderby':
      return { ...stage, order: compileOrderby(t.items, stage.model, OPTION) };
    case 'top':
    case 'skip':
      return limit(stage, t.kind, t.count);
  }
}

/** Applies the transformations in order; 400 with position on an unknown or ungroupable property. */
export function applyTransformations(stage: Stage, transformations: Transformation[], now: number): Stage {
  return transformations.reduce((s, t) => transform(s, t, now), stage);
}
