/**
 * Typed SQL fragments shared by the $filter compiler and its function library: every value carries its
 * expression type and whether it can be NULL, so the compiler can keep booleans two-valued.
 */
import type { Dialect } from '../db/dialect.ts';
import { badRequest } from '../errors.ts';
import type { ODataSql } from './dialect-sql.ts';
import type { EntityModel, PropertyDef } from './model.ts';

/** SQL text with its `?` parameters in order. */
export interface SqlFragment {
  sql: string;
  params: unknown[];
}

export type ExprType = 'string' | 'int' | 'decimal' | 'boolean' | 'datetime' | 'date' | 'time' | 'null' | 'enum';

export interface Typed extends SqlFragment {
  type: ExprType;
  nullable: boolean;
  pos: number;
  /** Set when the value is a plain property reference (enum members, index-friendly prefix ranges). */
  prop?: PropertyDef;
  /** For literals: the JS value (used to validate enum members). */
  literal?: unknown;
}

/** Joins SQL pieces and fragments, keeping the parameters in textual order. */
export function sql(strings: TemplateStringsArray, ...parts: SqlFragment[]): SqlFragment {
  let text = strings[0]!;
  const params: unknown[] = [];
  parts.forEach((p, i) => {
    text += p.sql + strings[i + 1]!;
    params.push(...p.params);
  });
  return { sql: text, params };
}

export const NUMERIC = new Set<ExprType>(['int', 'decimal']);

/** What compiling one option needs. */
export interface Context {
  model: EntityModel;
  option: string;
  now: number;
  dialect: Dialect;
  /** The compiler's SQL for the dialect (dialect-sql.ts). */
  dx: ODataSql;
}

/** A 400 naming the option and position. */
export const fail = (ctx: Context, message: string, pos: number) => badRequest(`${message} in ${ctx.option} at position ${pos}`);

/** How a type is named in messages. */
export function typeName(t: Typed): string {
  return t.type === 'enum' && t.prop ? `enum ${t.prop.enumName ?? t.prop.name}` : t.type === 'datetime' ? 'date-time' : t.type;
}

/** A definite (never NULL) boolean. */
export function boolResult(f: SqlFragment, pos: number): Typed {
  return { ...f, type: 'boolean', nullable: false, pos };
}

/** The constant true or false as a condition of the dialect. */
export function constant(ctx: Context, value: boolean, pos: number): Typed {
  return boolResult({ sql: value ? ctx.dx.TRUE : ctx.dx.FALSE, params: [] }, pos);
}

/** `(x IS NOT NULL AND ... AND cond)` for the nullable operands, so the result is never NULL. */
export function guarded(operands: Typed[], cond: SqlFragment): SqlFragment {
  let out = sql`(${cond})`;
  for (const o of [...operands].reverse()) if (o.nullable) out = sql`(${o} IS NOT NULL AND ${out})`;
  return out;
}
