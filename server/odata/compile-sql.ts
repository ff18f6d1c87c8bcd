/**
 * Type-checks a $filter / $orderby AST against an EntityModel and compiles it to parameterised SQL over
 * the model's columns. Every boolean the compiler emits is two-valued (OData 4.01 §5.1.1.1): comparisons
 * other than eq/ne with a null operand are false, `eq`/`ne` test nulls with IS / IS NOT, so SQL's NULL
 * never reaches a NOT. String functions are case-sensitive (instr/substr, never LIKE). The SQL is the store's
 * dialect's: where SQLite and PostgreSQL differ the fragments come from dialect-sql.ts.
 */
import type { Dialect } from '../db/dialect.ts';
import { badRequest } from '../errors.ts';
import { odataSql } from './dialect-sql.ts';
import type { EntityModel, PropertyDef } from './model.ts';
import { NAMESPACE } from './model.ts';
import type { BinaryOp, FilterNode, OrderbyItem } from './parse-filter.ts';
import { compileCall } from './compile-functions.ts';
import { literal } from './compile-literals.ts';
import { NUMERIC, boolResult, constant, fail, guarded, sql, typeName, type Context, type ExprType, type SqlFragment, type Typed } from './sql-fragment.ts';

export type { SqlFragment } from './sql-fragment.ts';

/** The expression type of a property. */
function propType(p: PropertyDef): ExprType {
  if (p.enumValues) return 'enum';
  switch (p.type) {
    case 'Edm.Int32':
    case 'Edm.Int64':
      return 'int';
    case 'Edm.Decimal':
    case 'Edm.Double':
      return 'decimal';
    case 'Edm.Boolean':
      return 'boolean';
    case 'Edm.DateTimeOffset':
      return 'datetime';
    case 'Edm.Date':
      return 'date';
    case 'Edm.TimeOfDay':
      return 'time';
    default:
      return 'string';
  }
}

/**
 * Finds a property by its exact name; a wrong-case name gets a 400 that suggests the right one,
 * an unknown name `Unknown property 'Foo' in $filter at position 12`.
 */
export function resolveProperty(model: EntityModel, name: string, pos: number, option: string): PropertyDef {
  const exact = model.properties.find((p) => p.name === name);
  if (exact) return exact;
  const folded = model.properties.find((p) => p.name.toLowerCase() === name.toLowerCase());
  if (folded) {
    throw badRequest(`Unknown property '${name}' in ${option} at position ${pos}; property names are case-sensitive: did you mean '${folded.name}'?`);
  }
  throw badRequest(`Unknown property '${name}' in ${option} at position ${pos}`);
}

function property(node: Extract<FilterNode, { kind: 'property' }>, ctx: Context): Typed {
  if (node.path.length > 1) throw fail(ctx, `Navigation '${node.path.join('/')}' is not supported`, node.pos);
  const p = resolveProperty(ctx.model, node.path[0]!, node.pos, ctx.option);
  if (p.virtual || p.collection || !p.column || p.filterable === false) {
    throw fail(ctx, `Property '${p.name}' cannot be used`, node.pos);
  }
  const type = propType(p);
  const text = type === 'boolean' ? ctx.dx.flag(p.column) : `(${p.column})`;
  return { sql: text, params: [], type, nullable: p.nullable ?? false, pos: node.pos, prop: p };
}

/** A boolean operand as its 0/1 value (how booleans compare with each other); other operands as they are. */
function boolValue(t: Typed, ctx: Context): Typed {
  if (t.type !== 'boolean' || ctx.dx.conditionsAreValues) return t;
  if (typeof t.literal === 'boolean') return { ...t, sql: t.literal ? '1' : '0', params: [] };
  if (t.prop?.column) return { ...t, sql: `(${t.prop.column})`, params: [] };
  return { ...t, ...ctx.dx.boolValue(t) };
}

/** Coerces an enum-vs-string or enum-literal comparison, validating the member against the property. */
function checkEnum(enumSide: Typed, other: Typed, ctx: Context): void {
  const p = enumSide.prop!;
  if (other.type === 'string' || other.type === 'enum') {
    if (other.type === 'enum' && other.prop) {
      if (other.prop.enumName !== p.enumName) throw fail(ctx, `Cannot compare ${typeName(enumSide)} with ${typeName(other)}`, other.pos);
      return;
    }
    let member = other.literal as unknown;
    if (other.type === 'enum') {
      const lit = other.literal as { qualifier: string; member: string };
      const expected = `${NAMESPACE}.${p.enumName}`;
      if (lit.qualifier !== expected && lit.qualifier !== p.enumName) {
        throw fail(ctx, `Enum type '${lit.qualifier}' does not match '${expected}'`, other.pos);
      }
      member = lit.member;
    }
    if (typeof member !== 'string') throw fail(ctx, `Cannot compare ${typeName(enumSide)} with an expression`, other.pos);
    if (!p.enumValues!.includes(member)) {
      throw fail(ctx, `'${member}' is not a valid ${p.name}; expected one of ${p.enumValues!.join(', ')}`, other.pos);
    }
    return;
  }
  throw fail(ctx, `Cannot compare ${typeName(enumSide)} with ${typeName(other)}`, other.pos);
}

/** Makes two operands comparable (or throws a 400); returns them possibly converted. */
function unify(a: Typed, b: Typed, op: string, ctx: Context, pos: number): [Typed, Typed] {
  if (a.type === 'null' || b.type === 'null') return [a, b];
  if (a.type === 'enum' && a.prop) return checkEnum(a, b, ctx), [a, b];
  if (b.type === 'enum' && b.prop) return checkEnum(b, a, ctx), [a, b];
  if (NUMERIC.has(a.type) && NUMERIC.has(b.type)) return [a, b];
  if (a.type === b.type && a.type !== 'enum') {
    if (a.type === 'boolean' && op !== 'eq' && op !== 'ne' && op !== 'in') throw fail(ctx, `Operator '${op}' cannot compare booleans`, pos);
    return [a, b];
  }
  const toInstant = (d: Typed): Typed => ({ ...d, type: 'datetime', sql: ctx.dx.param('datetime'), params: [Date.parse(`${d.literal as string}T00:00:00Z`)] });
  if (a.type === 'datetime' && b.type === 'date' && b.literal !== undefined) return [a, toInstant(b)];
  if (b.type === 'datetime' && a.type === 'date' && a.literal !== undefined) return [toInstant(a), b];
  const where = b.literal !== undefined || b.prop ? b.pos : pos;
  throw fail(ctx, `Cannot compare ${typeName(a)} with ${typeName(b)}`, where);
}

const REL_SQL: Record<string, string> = { gt: '>', ge: '>=', lt: '<', le: '<=' };

/** Two-valued comparison. */
function compare(op: BinaryOp, l: Typed, r: Typed, ctx: Context, pos: number): Typed {
  const [a, b] = unify(l, r, op, ctx, pos).map((t) => boolValue(t, ctx)) as [Typed, Typed];
  if (op === 'eq' || op === 'ne') {
    if (a.type === 'null' && b.type === 'null') return constant(ctx, op === 'eq', pos);
    if (b.type === 'null') return boolResult(op === 'eq' ? sql`(${a} IS NULL)` : sql`(${a} IS NOT NULL)`, pos);
    if (a.type === 'null') return boolResult(op === 'eq' ? sql`(${b} IS NULL)` : sql`(${b} IS NOT NULL)`, pos);
    if (a.nullable || b.nullable) return boolResult(ctx.dx.same(a, b, op === 'ne'), pos);
    return boolResult(op === 'eq' ? sql`(${a} = ${b})` : sql`(${a} <> ${b})`, pos);
  }
  if (a.type === 'null' || b.type === 'null') return constant(ctx, false, pos);
  const cmp: SqlFragment = { sql: REL_SQL[op]!, params: [] };
  return boolResult(guarded([a, b], sql`${a} ${cmp} ${b}`), pos);
}

function asCondition(t: Typed, ctx: Context): SqlFragment {
  if (t.type !== 'boolean') throw fail(ctx, `Expected a boolean expression but found ${typeName(t)}`, t.pos);
  return t.nullable ? ctx.dx.isTrue(t) : t;
}

function arithmetic(op: BinaryOp, l: Typed, r: Typed, ctx: Context, pos: number): Typed {
  for (const x of [l, r]) {
    if (!NUMERIC.has(x.type) && x.type !== 'null') throw fail(ctx, `Operator '${op}' needs numbers but found ${typeName(x)}`, x.pos);
  }
  const decimal = l.type === 'decimal' || r.type === 'decimal' || op === 'divby';
  const [a, b] = [l, r].map((x) => (x.type === 'null' ? { ...x, sql: ctx.dx.nullOf(decimal ? 'decimal' : 'int') } : x)) as [Typed, Typed];
  const nullable = a.nullable || b.nullable || op === 'div' || op === 'divby' || op === 'mod';
  let f: SqlFragment;
  switch (op) {
    case 'add':
      f = sql`(${a} + ${b})`;
      break;
    case 'sub':
      f = sql`(${a} - ${b})`;
      break;
    case 'mul':
      f = sql`(${a} * ${b})`;
      break;
    case 'div':
    case 'divby':
      f = ctx.dx.divide(a, b, decimal);
      break;
    default:
      f = ctx.dx.modulo(a, b, decimal);
  }
  return { ...f, type: decimal ? 'decimal' : 'int', nullable, pos };
}

function compile(node: FilterNode, ctx: Context): Typed {
  switch (node.kind) {
    case 'literal':
      return literal(node, ctx);
    case 'property':
      return property(node, ctx);
    case 'call':
      return compileCall(node, node.args.map((a) => compile(a, ctx)), ctx);
    case 'negate': {
      const a = compile(node.operand, ctx);
      if (!NUMERIC.has(a.type)) throw fail(ctx, `Cannot negate ${typeName(a)}`, node.pos);
      return { ...sql`(- ${a})`, type: a.type, nullable: a.nullable, pos: node.pos };
    }
    case 'not': {
      const a = asCondition(compile(node.operand, ctx), ctx);
      return boolResult(sql`(NOT ${a})`, node.pos);
    }
    case 'in': {
      const left = compile(node.left, ctx);
      const items = node.list.map((n) => compile(n, ctx));
      for (const it of items) unify(left, it, 'in', ctx, it.pos);
      if (items.length === 0) return constant(ctx, false, node.pos);
      if (left.type === 'null') return constant(ctx, items.some((i) => i.type === 'null'), node.pos);
      if (!left.nullable && items.every((i) => !i.nullable)) {
        const list = items.map((it) => boolValue(it, ctx)).reduce<SqlFragment | null>((acc, it) => (acc ? sql`${acc}, ${it}` : it), null)!;
        return boolResult(sql`(${boolValue(left, ctx)} IN (${list}))`, node.pos);
      }
      const ors = items.map((it): SqlFragment => compare('eq', left, it, ctx, node.pos)).reduce((acc, f) => sql`${acc} OR ${f}`);
      return boolResult(sql`(${ors})`, node.pos);
    }
    case 'binary': {
      const { op } = node;
      if (op === 'and' || op === 'or') {
        const l = asCondition(compile(node.left, ctx), ctx);
        const r = asCondition(compile(node.right, ctx), ctx);
        return boolResult(op === 'and' ? sql`(${l} AND ${r})` : sql`(${l} OR ${r})`, node.pos);
      }
      const l = compile(node.left, ctx);
      const r = compile(node.right, ctx);
      if (op in REL_SQL || op === 'eq' || op === 'ne') return compare(op, l, r, ctx, node.pos);
      return arithmetic(op, l, r, ctx, node.pos);
    }
  }
}

/** A compiled condition; `volatile` when it read the clock (`now()`), so it must not be reused later. */
export interface CompiledFilter extends SqlFragment {
  volatile: boolean;
}

/** Compiles a parsed $filter to a two-valued SQL condition of the dialect; 400 with position on a name or type error. */
export function compileFilter(ast: FilterNode, model: EntityModel, dialect: Dialect, now = Date.now(), option = '$filter'): CompiledFilter {
  let volatile = false;
  const ctx: Context = {
    model,
    option,
    dialect,
    dx: odataSql(dialect),
    get now() {
      volatile = true;
      return now;
    },
  };
  const t = compile(ast, ctx);
  if (t.type !== 'boolean') throw fail(ctx, `${option} must be a boolean expression, not ${typeName(t)}`, 0);
  const cond = asCondition(t, ctx);
  return { sql: cond.sql, params: cond.params, volatile };
}

const compiledFilters = new WeakMap<EntityModel, Map<string, CompiledFilter>>();

/**
 * compileFilter cached per model, dialect and `$filter` text (at most 500 per model, oldest dropped first); a
 * filter that reads `now()` is compiled afresh every time, so it is never served stale.
 */
export function compileFilterCached(text: string, ast: FilterNode, model: EntityModel, dialect: Dialect, now = Date.now()): CompiledFilter {
  let cache = compiledFilters.get(model);
  if (!cache) compiledFilters.set(model, (cache = new Map()));
  const key = `${dialect.name}\u0000${text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const f = compileFilter(ast, model, dialect, now);
  if (!f.volatile) {
    if (cache.size >= 500) cache.delete(cache.keys().next().value!);
    cache.set(key, f);
  }
  return f;
}

/**
 * Compiles a value expression (e.g. `$apply`'s `compute(hour(Time) as Hour)`); a boolean comes out as the
 * value 0/1, never NULL. Names and types are checked as in $filter.
 */
export function compileExpression(ast: FilterNode, model: EntityModel, dialect: Dialect, now: number, option: string): Typed {
  const ctx: Context = { model, option, now, dialect, dx: odataSql(dialect) };
  const t = compile(ast, ctx);
  if (t.type !== 'boolean') return t;
  const value = t.nullable ? ctx.dx.boolValue(asCondition(t, ctx)) : boolValue(t, ctx);
  return { ...t, ...value, nullable: false };
}

/** One sort key of a compiled $orderby. */
export interface OrderKey {
  prop: PropertyDef;
  desc: boolean;
}

/** Checks a parsed $orderby against the model: only sortable properties, each at most once. */
export function compileOrderby(items: OrderbyItem[], model: EntityModel, option = '$orderby'): OrderKey[] {
  const keys: OrderKey[] = [];
  for (const item of items) {
    const e = item.expr;
    if (e.kind !== 'property') throw badRequest(`Only properties can be sorted by in ${option} at position ${item.pos}`);
    if (e.path.length > 1) throw badRequest(`Navigation '${e.path.join('/')}' is not supported in ${option} at position ${e.pos}`);
    const prop = resolveProperty(model, e.path[0]!, e.pos, option);
    if (prop.virtual || prop.collection || !prop.column || prop.sortable === false) {
      throw badRequest(`Property '${prop.name}' cannot be sorted by in ${option} at position ${e.pos}`);
    }
    if (keys.some((k) => k.prop === prop)) throw badRequest(`Property '${prop.name}' appears twice in ${option} at position ${e.pos}`);
    keys.push({ prop, desc: item.desc });
  }
  return keys;
}
