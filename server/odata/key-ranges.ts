/**
 * Key order under a time filter, served by the primary key: when a model keeps per-bucket key
 * bounds by a time property (`EntityModel.keyRangesByTime`) and the `$filter` is a conjunction that bounds
 * that time by literals, the page query may scan the key range those buckets allow in key order instead of
 * sorting the whole filtered range in a temporary B-tree. The time condition still applies to every row.
 */
import type { Dialect } from '../db/dialect.ts';
import { dateTimeToMs } from './compile-literals.ts';
import { odataSql } from './dialect-sql.ts';
import type { EntityModel } from './model.ts';
import type { FilterNode } from './parse-filter.ts';
import type { SqlFragment } from './sql-fragment.ts';

const INT32 = 2_147_483_647;
const FLIP: Record<string, string> = { gt: 'lt', ge: 'le', lt: 'gt', le: 'ge', eq: 'eq' };

function literalMs(node: FilterNode): number | undefined {
  if (node.kind !== 'literal') return undefined;
  if (node.type === 'datetime') return dateTimeToMs(node.value as string);
  if (node.type === 'date') return Date.parse(`${node.value as string}T00:00:00Z`);
  return undefined;
}

/**
 * The [lower, upper] instants (inclusive, either may be unbounded) a conjunction imposes on `property`; `only`
 * when the conjunction says nothing else.
 */
export function timeBounds(ast: FilterNode | undefined, property: string): { lo: number; hi: number; only: boolean } | undefined {
  let lo = -Infinity;
  let hi = Infinity;
  let only = true;
  const visit = (n: FilterNode): void => {
    if (n.kind !== 'binary') return void (only = false);
    if (n.op === 'and') return visit(n.left), visit(n.right);
    const isProp = (x: FilterNode) => x.kind === 'property' && x.path.length === 1 && x.path[0] === property;
    let op: string | undefined;
    let ms: number | undefined;
    if (isProp(n.left)) [op, ms] = [n.op, literalMs(n.right)];
    else if (isProp(n.right)) [op, ms] = [FLIP[n.op], literalMs(n.left)];
    if (ms === undefined || !Number.isFinite(ms) || !(op! in FLIP)) return void (only = false);
    if (op === 'gt' || op === 'ge' || op === 'eq') lo = Math.max(lo, ms);
    if (op === 'lt' || op === 'le' || op === 'eq') hi = Math.min(hi, ms);
  };
  if (ast) visit(ast);
  return lo === -Infinity && hi === Infinity ? undefined : { lo, hi, only };
}

const unindexed = new WeakMap<EntityModel, Map<string, EntityModel>>();

/** `model` with its time property's column as `ODataSql.unindexedTime` writes it (one object per model and dialect, for the filter cache). */
function unindexedTimeModel(model: EntityModel, property: string, dialect: Dialect): EntityModel {
  const column = model.properties.find((p) => p.name === property)?.column;
  if (column === undefined || odataSql(dialect).unindexedTime(column) === column) return model;
  let byDialect = unindexed.get(model);
  if (!byDialect) unindexed.set(model, (byDialect = new Map()));
  let variant = byDialect.get(dialect.name);
  if (!variant) {
    const properties = model.properties.map((p) => (p.name === property ? { ...p, column: odataSql(dialect).unindexedTime(column) } : p));
    byDialect.set(dialect.name, (variant = { ...model, properties }));
  }
  return variant;
}

/**
 * The extra condition and FROM for reading a time-bounded `$filter` in ascending key order from the primary
 * key; undefined when the model keeps no bounds or the filter does not bound its time. The FROM is the
 * dialect's (`ODataSql.keyRangeFrom`). `fixedPlan` when the filter bounds the time and nothing else: the page is
 * then the primary key's range read whatever the instants, so it may keep one plan (Queryable.rows' `fixedPlan`), its
 * filter compiled against `filterModel` (the time column out of any index's reach); with another condition, the
 * best index may depend on its value.
 */
export function keyRangeScan(
  model: EntityModel,
  ast: FilterNode | undefined,
  dialect: Dialect,
): { from: string; where: SqlFragment; fixedPlan: boolean; filterModel: EntityModel } | undefined {
  const spec = model.keyRangesByTime;
  if (!spec || model.key.length !== 1) return undefined;
  const bounds = timeBounds(ast, spec.property);
  if (!bounds) return undefined;
  const key = model.properties.find((p) => p.name === model.key[0])!.column!;
  // Bucket numbers stay within a 32-bit integer (the bucket column's type may be `integer` on PostgreSQL).
  const bucket = (ms: number, edge: number) => (Number.isFinite(ms) ? Math.max(-INT32, Math.min(INT32, Math.floor(ms / spec.bucketMs))) : edge);
  const first = bucket(bounds.lo, -INT32);
  const last = bucket(bounds.hi, INT32);
  const range = `FROM ${spec.table} WHERE hour BETWEEN ? AND ?`;
  return {
    from: odataSql(dialect).keyRangeFrom(spec.unindexedFrom, model.from!),
    where: {
      sql: `(${key}) BETWEEN (SELECT COALESCE(min(min_id), 1) ${range}) AND (SELECT COALESCE(max(max_id), 0) ${range})`,
      params: [first, last, first, last],
    },
    fixedPlan: bounds.only,
    filterModel: bounds.only ? unindexedTimeModel(model, spec.property, dialect) : model,
  };
}
