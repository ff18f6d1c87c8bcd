/**
 * Literals of $filter and $apply expressions as typed SQL values: date-times become epoch milliseconds, times
 * 'HH:MM:SS.fff' (the text `time()` yields), integers bind as BigInt so SQLite divides them as integers.
 */
import type { FilterNode } from './parse-filter.ts';
import { fail, type Context, type Typed } from './sql-fragment.ts';

/** Converts an OData date-time literal with offset to epoch milliseconds. */
export function dateTimeToMs(text: string): number {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(?::(\d{2}))?(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.exec(text);
  if (!m) return NaN;
  const frac = m[3] ? m[3].slice(0, 4).padEnd(4, '0') : '';
  const leap = m[2] === '60'; // a leap second is the first instant of the next minute
  const ms = Date.parse(`${m[1]}:${leap ? '59' : (m[2] ?? '00')}${frac}${m[4] ?? 'Z'}`);
  return leap ? ms + 1000 : ms;
}

function normaliseTime(text: string): string {
  const [h, mi, s = '00'] = text.split(':');
  const [sec, frac = ''] = s.split('.');
  return `${h}:${mi}:${sec}.${frac.slice(0, 3).padEnd(3, '0')}`;
}

/** A literal as a typed SQL value: a bound parameter of the dialect's type, or a constant. */
export function literal(node: Extract<FilterNode, { kind: 'literal' }>, ctx: Context): Typed {
  const base = { pos: node.pos, nullable: false, literal: node.value };
  switch (node.type) {
    case 'null':
      return { ...base, sql: 'NULL', params: [], type: 'null', nullable: true };
    case 'boolean':
      return { ...base, sql: node.value ? ctx.dx.TRUE : ctx.dx.FALSE, params: [], type: 'boolean' };
    case 'int':
    case 'decimal': {
      const v = node.value as number;
      if (!Number.isFinite(v)) throw fail(ctx, 'Number out of range', node.pos);
      const type = node.type === 'int' && Number.isSafeInteger(v) ? 'int' : 'decimal';
      // Integers bind as BigInt so SQLite sees INTEGER (integer division), decimals as REAL.
      return { ...base, sql: ctx.dx.param(type), params: [type === 'int' ? BigInt(v) : v], type };
    }
    case 'string':
      return { ...base, sql: ctx.dx.param('string'), params: [node.value], type: 'string' };
    case 'datetime': {
      const ms = dateTimeToMs(node.value as string);
      if (!Number.isFinite(ms)) throw fail(ctx, `Invalid date-time '${node.value}'`, node.pos);
      return { ...base, sql: ctx.dx.param('datetime'), params: [ms], type: 'datetime' };
    }
    case 'date':
      return { ...base, sql: ctx.dx.param('date'), params: [node.value], type: 'date' };
    case 'time':
      return { ...base, sql: ctx.dx.param('time'), params: [normaliseTime(node.value as string)], type: 'time' };
    case 'enum':
      return { ...base, sql: ctx.dx.param('enum'), params: [node.value], type: 'enum', literal: { qualifier: node.qualifier, member: node.value } };
    case 'guid':
      throw fail(ctx, 'GUID literals are not supported', node.pos);
  }
}
