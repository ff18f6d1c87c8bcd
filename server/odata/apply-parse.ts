/**
 * Parser of `$apply` (OData Data Aggregation Extension v4.0, docs/cati-api.md#apply) into a list of transformations
 * with character positions: `aggregate`, `groupby((P,...)[,aggregate(...)])`, `filter`, `compute`,
 * `orderby`, `top`, `skip`, `identity`, chained with `/`. Expressions inside are parsed by the $filter
 * parser (same lexer, same positions); names and types are checked later by apply-compile.ts.
 */
import { syntaxError, tokenize, type Token } from './filter-lexer.ts';
import { describe, FILTER_LIMITS, Parser, type FilterNode, type OrderbyItem } from './parse-filter.ts';

/** The standard aggregation methods served (no custom aggregates). */
export type AggregateMethod = 'sum' | 'min' | 'max' | 'average' | 'countdistinct';

/** One aggregate: `$count as Alias` (expr undefined) or `expr with method as Alias`. */
export interface AggregateItem {
  expr?: FilterNode;
  method?: AggregateMethod;
  alias: string;
  pos: number;
}

/** A property named in `groupby((...))`. */
export interface GroupingProperty {
  name: string;
  pos: number;
}

/** One step of a `$apply` pipeline, with the position of its name. */
export type Transformation =
  | { kind: 'aggregate'; items: AggregateItem[]; pos: number }
  | { kind: 'groupby'; properties: GroupingProperty[]; aggregate?: AggregateItem[]; pos: number }
  | { kind: 'filter'; expr: FilterNode; pos: number }
  | { kind: 'compute'; items: { expr: FilterNode; alias: string; pos: number }[]; pos: number }
  | { kind: 'orderby'; items: OrderbyItem[]; pos: number }
  | { kind: 'top' | 'skip'; count: number; pos: number }
  | { kind: 'identity'; pos: number };

const OPTION = '$apply';
const METHODS = new Set<string>(['sum', 'min', 'max', 'average', 'countdistinct']);
const SUPPORTED = 'aggregate, groupby, filter, compute, orderby, top, skip, identity';

class ApplyParser extends Parser {
  constructor(tokens: Token[]) {
    super(tokens, OPTION);
  }

  /** A case-insensitive keyword such as `as` or `with`. */
  word(expected: string): Token {
    const t = this.peek();
    if (this.keyword() !== expected) throw this.error(`Expected '${expected}' but found ${describe(t)}`, t.pos);
    return this.next();
  }

  alias(): string {
    const t = this.expect('ident', 'an alias');
    if (t.text.includes('.') || t.text.startsWith('$')) throw this.error(`'${t.text}' cannot be an alias`, t.pos);
    return t.text;
  }

  /** `item (, item)*` up to the closing parenthesis, which it consumes. */
  items<T>(one: () => T): T[] {
    const out = [one()];
    while (this.peek().kind === ',') {
      this.next();
      out.push(one());
    }
    this.expect(')', "',' or ')'");
    return out;
  }

  aggregateItem = (): AggregateItem => {
    const start = this.peek();
    if (start.kind === 'ident' && start.text.toLowerCase() === '$count') {
      this.next();
      this.word('as');
      return { alias: this.alias(), pos: start.pos };
    }
    const expr = this.expression();
    this.word('with');
    const m = this.expect('ident', 'an aggregation method');
    const method = m.text.toLowerCase();
    if (!METHODS.has(method)) throw this.error(`Aggregation method '${m.text}' is not supported (sum, min, max, average, countdistinct)`, m.pos);
    this.word('as');
    return { expr, method: method as AggregateMethod, alias: this.alias(), pos: start.pos };
  };

  count(): number {
    const t = this.expect('int', 'a non-negative integer');
    const n = Number(t.text);
    if (!/^\d+$/.test(t.text) || n > 2147483647) throw this.error(`'${t.text}' is not a non-negative 32-bit integer`, t.pos);
    this.expect(')', "')'");
    return n;
  }

  transformation(): Transformation {
    const t = this.expect('ident', 'a transformation');
    const name = t.text.toLowerCase();
    const pos = t.pos;
    if (name === 'identity') return { kind: 'identity', pos };
    this.expect('(', `'(' after '${t.text}'`);
    switch (name) {
      case 'aggregate':
        return { kind: 'aggregate', items: this.items(this.aggregateItem), pos };
      case 'groupby': {
        this.expect('(', "'(' opening the grouping properties");
        const properties = this.items(() => {
          const p = this.expect('ident', 'a property name');
          if (this.peek().kind === '/') throw this.error('Navigation is not supported in groupby', this.peek().pos);
          return { name: p.text, pos: p.pos };
        });
        if (this.peek().kind === ')') {
          this.next();
          return { kind: 'groupby', properties, pos };
        }
        this.expect(',', "',' or ')'");
        const inner = this.expect('ident', "'aggregate'");
        if (inner.text.toLowerCase() !== 'aggregate') throw this.error(`Only aggregate(...) is supported inside groupby, not '${inner.text}'`, inner.pos);
        this.expect('(', "'(' after 'aggregate'");
        const aggregate = this.items(this.aggregateItem);
        this.expect(')', "')' closing groupby");
        return { kind: 'groupby', properties, aggregate, pos };
      }
      case 'filter': {
        const expr = this.expression();
        this.expect(')', "')'");
        return { kind: 'filter', expr, pos };
      }
      case 'compute':
        return {
          kind: 'compute',
          items: this.items(() => {
            const start = this.peek().pos;
            const expr = this.expression();
            this.word('as');
            return { expr, alias: this.alias(), pos: start };
          }),
          pos,
        };
      case 'orderby':
        return {
          kind: 'orderby',
          items: this.items(() => {
            const start = this.peek().pos;
            const expr = this.expression();
            const k = this.keyword();
            if (k === 'asc' || k === 'desc') this.next();
            return { expr, desc: k === 'desc', pos: start };
          }),
          pos,
        };
      case 'top':
      case 'skip':
        return { kind: name, count: this.count(), pos };
      default:
        throw this.error(`Transformation '${t.text}' is not supported (${SUPPORTED})`, pos);
    }
  }
}

/** Parses a `$apply` value (percent-decoded); 400 with position on a syntax error. */
export function parseApply(input: string): Transformation[] {
  if (input.length > FILTER_LIMITS.maxLength) throw syntaxError(OPTION, `Expression longer than ${FILTER_LIMITS.maxLength} characters`, FILTER_LIMITS.maxLength);
  const p = new ApplyParser(tokenize(input, OPTION));
  if (p.peek().kind === 'eof') throw p.error('Empty $apply', 0);
  const out = [p.transformation()];
  while (p.peek().kind === '/') {
    p.next();
    out.push(p.transformation());
  }
  const rest = p.peek();
  if (rest.kind !== 'eof') throw p.error(`Expected '/' or the end of $apply but found ${describe(rest)}`, rest.pos);
  return out;
}
