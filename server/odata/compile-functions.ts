/**
 * The $filter function library (OData 4.01 §5.1.1.5-5.1.1.8 subset) compiled to the store's dialect: string
 * functions are case-sensitive (position/substr, never LIKE); date parts are UTC from epoch-ms columns
 * (dialect-sql.ts has the forms that differ between SQLite and PostgreSQL).
 */
import type { DatePart } from './dialect-sql.ts';
import type { FilterNode } from './parse-filter.ts';
import { boolResult, constant, fail, guarded, sql, typeName, type Context, type ExprType, type SqlFragment, type Typed } from './sql-fragment.ts';

/**
 * `startswith(Column, 'literal')` as an index-friendly range (`col >= p AND col < p'`, p' = p with its
 * last character incremented) plus the exact test, so an index on the column serves prefix searches.
 */
function prefixRange(a: Typed, b: Typed, ctx: Context): SqlFragment | undefined {
  const prefix = b.literal;
  if (!a.prop || typeof prefix !== 'string' || prefix === '') return undefined;
  const last = prefix.charCodeAt(prefix.length - 1);
  if (last >= 0xd7ff) return undefined;
  const upper: SqlFragment = { sql: ctx.dx.param('string'), params: [prefix.slice(0, -1) + String.fromCharCode(last + 1)] };
  return sql`(${a} >= ${b} AND ${a} < ${upper} AND substr(${a}, 1, length(${b})) = ${b})`;
}

/** Type-checks and compiles a call of a supported $filter function on compiled arguments. */
export function compileCall(node: Extract<FilterNode, { kind: 'call' }>, args: Typed[], ctx: Context): Typed {
  const arity = (min: number, max = min) => {
    if (args.length < min || args.length > max) {
      const n = min === max ? `${min}` : `${min} to ${max}`;
      throw fail(ctx, `Function '${node.name}' takes ${n} argument${max === 1 ? '' : 's'}`, node.pos);
    }
  };
  const want = (i: number, ...types: ExprType[]) => {
    const a = args[i]!;
    if (a.type !== 'null' && !types.includes(a.type)) {
      throw fail(ctx, `Argument ${i + 1} of '${node.name}' must be ${types.join(' or ')} but is ${typeName(a)}`, a.pos);
    }
    // A null argument gets the type the function takes (PostgreSQL cannot resolve `length(NULL)` untyped).
    if (a.type === 'null') args[i] = { ...a, sql: ctx.dx.nullOf(types[0]!) };
  };
  const nullable = args.some((a) => a.nullable);
  const result = (f: SqlFragment, type: ExprType, isNullable = nullable): Typed => ({ ...f, type, nullable: isNullable, pos: node.pos });
  const { dx } = ctx;
  switch (node.name) {
    case 'contains':
    case 'startswith':
    case 'endswith': {
      arity(2);
      want(0, 'string');
      want(1, 'string');
      const [a, b] = args as [Typed, Typed];
      if (a.type === 'null' || b.type === 'null') return constant(ctx, false, node.pos);
      if (node.name === 'startswith') {
        const range = prefixRange(a, b, ctx);
        if (range) return boolResult(guarded([a], range), node.pos);
      }
      const cond =
        node.name === 'contains'
          ? sql`${dx.position(a, b)} > 0`
          : node.name === 'startswith'
            ? sql`substr(${a}, 1, length(${b})) = ${b}`
            : sql`substr(${a}, length(${a}) - length(${b}) + 1) = ${b}`;
      return boolResult(guarded([a, b], cond), node.pos);
    }
    case 'tolower':
    case 'toupper':
    case 'trim':
      arity(1);
      want(0, 'string');
      return result(node.name === 'trim' ? sql`trim(${args[0]!})` : dx.fold(args[0]!, node.name === 'toupper'), 'string');
    case 'length':
      arity(1);
      want(0, 'string');
      return result(sql`length(${args[0]!})`, 'int');
    case 'indexof':
      arity(2);
      want(0, 'string');
      want(1, 'string');
      return result(sql`(${dx.position(args[0]!, args[1]!)} - 1)`, 'int');
    case 'substring':
      arity(2, 3);
      want(0, 'string');
      want(1, 'int');
      if (args.length > 2) want(2, 'int');
      return result(dx.substring(args[0]!, args[1]!, args[2]), 'string');
    case 'concat':
      arity(2);
      want(0, 'string');
      want(1, 'string');
      return result(sql`(${args[0]!} || ${args[1]!})`, 'string');
    case 'year':
    case 'month':
    case 'day':
    case 'hour':
    case 'minute':
    case 'second': {
      arity(1);
      const dateParts = ['year', 'month', 'day'].includes(node.name);
      want(0, 'datetime', dateParts ? 'date' : 'time');
      const type = args[0]!.type === 'null' ? 'datetime' : args[0]!.type;
      return result(dx.datePart(node.name as DatePart, args[0]!, type), 'int', true);
    }
    case 'date':
      arity(1);
      want(0, 'datetime');
      return result(dx.dateOf(args[0]!), 'date', true);
    case 'time':
      arity(1);
      want(0, 'datetime');
      return result(dx.timeOf(args[0]!), 'time', true);
    case 'now':
      arity(0);
      return result({ sql: dx.param('datetime'), params: [ctx.now] }, 'datetime', false);
    default:
      throw fail(ctx, `Function '${node.name}' is not supported`, node.pos);
  }
}
