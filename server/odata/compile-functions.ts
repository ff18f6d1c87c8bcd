/**
 * The $filter function library (OData 4.01 §5.1.1.5-5.1.1.8 subset) compiled to SQLite: string functions
 * are case-sensitive (instr/substr, never LIKE); date parts are UTC from epoch-ms columns via strftime.
 */
import type { FilterNode } from './parse-filter.ts';
import { boolResult, fail, guarded, sql, typeName, type Context, type ExprType, type SqlFragment, type Typed } from './sql-fragment.ts';

/**
 * `startswith(Column, 'literal')` as an index-friendly range (`col >= p AND col < p'`, p' = p with its
 * last character incremented) plus the exact test, so an index on the column serves prefix searches.
 */
function prefixRange(a: Typed, b: Typed): SqlFragment | undefined {
  const prefix = b.literal;
  if (!a.prop || typeof prefix !== 'string' || prefix === '') return undefined;
  const last = prefix.charCodeAt(prefix.length - 1);
  if (last >= 0xd7ff) return undefined;
  const upper: SqlFragment = { sql: '?', params: [prefix.slice(0, -1) + String.fromCharCode(last + 1)] };
  return sql`(${a} >= ${b} AND ${a} < ${upper} AND substr(${a}, 1, length(${b})) = ${b})`;
}

const STRFTIME: Record<string, string> = { year: '%Y', month: '%m', day: '%d', hour: '%H', minute: '%M', second: '%S' };

/** A date-time, date or time operand as a SQLite time value for strftime. */
function timeValue(t: Typed): SqlFragment {
  return t.type === 'datetime' ? sql`${t} / 1000.0, 'unixepoch'` : t;
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
  };
  const nullable = args.some((a) => a.nullable);
  const result = (f: SqlFragment, type: ExprType, isNullable = nullable): Typed => ({ ...f, type, nullable: isNullable, pos: node.pos });
  const [a, b, c] = args as [Typed, Typed, Typed];
  switch (node.name) {
    case 'contains':
    case 'startswith':
    case 'endswith': {
      arity(2);
      want(0, 'string');
      want(1, 'string');
      if (a.type === 'null' || b.type === 'null') return boolResult({ sql: '0', params: [] }, node.pos);
      if (node.name === 'startswith') {
        const range = prefixRange(a, b);
        if (range) return boolResult(range, node.pos);
      }
      const cond =
        node.name === 'contains'
          ? sql`instr(${a}, ${b}) > 0`
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
      return result(node.name === 'trim' ? sql`trim(${a})` : node.name === 'tolower' ? sql`lower(${a})` : sql`upper(${a})`, 'string');
    case 'length':
      arity(1);
      want(0, 'string');
      return result(sql`length(${a})`, 'int');
    case 'indexof':
      arity(2);
      want(0, 'string');
      want(1, 'string');
      return result(sql`(instr(${a}, ${b}) - 1)`, 'int');
    case 'substring':
      arity(2, 3);
      want(0, 'string');
      want(1, 'int');
      if (c) want(2, 'int');
      return result(c ? sql`substr(${a}, max(${b}, 0) + 1, max(${c}, 0))` : sql`substr(${a}, max(${b}, 0) + 1)`, 'string');
    case 'concat':
      arity(2);
      want(0, 'string');
      want(1, 'string');
      return result(sql`(${a} || ${b})`, 'string');
    case 'year':
    case 'month':
    case 'day':
    case 'hour':
    case 'minute':
    case 'second': {
      arity(1);
      const dateParts = ['year', 'month', 'day'].includes(node.name);
      want(0, 'datetime', dateParts ? 'date' : 'time');
      const fmt: SqlFragment = { sql: `'${STRFTIME[node.name]}'`, params: [] };
      return result(sql`CAST(strftime(${fmt}, ${timeValue(a)}) AS INTEGER)`, 'int', true);
    }
    case 'date':
      arity(1);
      want(0, 'datetime');
      return result(sql`strftime('%Y-%m-%d', ${timeValue(a)})`, 'date', true);
    case 'time':
      arity(1);
      want(0, 'datetime');
      return result(sql`strftime('%H:%M:%f', ${timeValue(a)})`, 'time', true);
    case 'now':
      arity(0);
      return result({ sql: '?', params: [ctx.now] }, 'datetime', false);
    default:
      throw fail(ctx, `Function '${node.name}' is not supported`, node.pos);
  }
}
