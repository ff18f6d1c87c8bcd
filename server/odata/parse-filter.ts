/**
 * Recursive-descent parser of OData $filter / $orderby expressions into an AST with character positions.
 * Schema-less: it checks syntax only. Names, types and the supported subset are checked by compile-sql.ts
 * against an EntityModel.
 *
 * Precedence (lowest first): or, and, not, eq/ne, gt/ge/lt/le/in, add/sub, mul/div/divby/mod, unary minus.
 * `not` applies to a whole comparison: `not Duration gt 5` means `not (Duration gt 5)`.
 */
import { syntaxError, tokenize, type Token, type TokenKind } from './filter-lexer.ts';

export type LiteralType = 'null' | 'boolean' | 'int' | 'decimal' | 'string' | 'date' | 'datetime' | 'time' | 'guid' | 'enum';

export type FilterNode =
  | { kind: 'literal'; type: LiteralType; value: string | number | boolean | null; qualifier?: string; pos: number }
  | { kind: 'property'; path: string[]; pos: number }
  | { kind: 'binary'; op: BinaryOp; left: FilterNode; right: FilterNode; pos: number }
  | { kind: 'not'; operand: FilterNode; pos: number }
  | { kind: 'negate'; operand: FilterNode; pos: number }
  | { kind: 'in'; left: FilterNode; list: FilterNode[]; pos: number }
  | { kind: 'call'; name: string; args: FilterNode[]; pos: number };

export type BinaryOp = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le' | 'and' | 'or' | 'add' | 'sub' | 'mul' | 'div' | 'divby' | 'mod';

export interface OrderbyItem {
  expr: FilterNode;
  desc: boolean;
  pos: number;
}

/**
 * Limits that keep a hostile expression cheap to parse and compile. `maxDepth` counts parentheses, calls and
 * prefix operators while parsing; `maxHeight` and `maxNodes` bound the finished tree, so a long chain of
 * binary operators (`1 add 1 add 1 …`) is refused before SQLite's own expression-depth limit is reached.
 */
export const FILTER_LIMITS = { maxLength: 8000, maxDepth: 60, maxListItems: 1000, maxHeight: 250, maxNodes: 3000, maxOrderbyItems: 100 };

const RELATIONAL = new Set(['gt', 'ge', 'lt', 'le']);
const MULTIPLICATIVE = new Set(['mul', 'div', 'divby', 'mod']);
const RESERVED = new Set(['and', 'or', 'not', 'eq', 'ne', 'gt', 'ge', 'lt', 'le', 'in', 'has', 'add', 'sub', 'mul', 'div', 'divby', 'mod']);

/** The expression parser; apply-parse.ts drives it inside `$apply` transformations. */
export class Parser {
  /** Index of the current token. */
  i = 0;
  private depth = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly option: string,
  ) {}

  peek(): Token {
    return this.tokens[this.i]!;
  }
  next(): Token {
    return this.tokens[this.i++]!;
  }
  /** The lower-case keyword at the cursor, if the token is an identifier. */
  keyword(): string | undefined {
    const t = this.peek();
    return t.kind === 'ident' ? t.text.toLowerCase() : undefined;
  }
  expect(kind: TokenKind, what: string): Token {
    const t = this.peek();
    if (t.kind !== kind) throw this.error(`Expected ${what} but found ${describe(t)}`, t.pos);
    return this.next();
  }
  error(message: string, pos: number) {
    return syntaxError(this.option, message, pos);
  }
  enter(pos: number) {
    if (++this.depth > FILTER_LIMITS.maxDepth) throw this.error('Expression nested too deeply', pos);
  }
  leave() {
    this.depth--;
  }

  expression(): FilterNode {
    this.enter(this.peek().pos);
    let left = this.andExpr();
    while (this.keyword() === 'or') {
      const op = this.next();
      left = { kind: 'binary', op: 'or', left, right: this.andExpr(), pos: op.pos };
    }
    this.leave();
    return left;
  }
  andExpr(): FilterNode {
    let left = this.notExpr();
    while (this.keyword() === 'and') {
      const op = this.next();
      left = { kind: 'binary', op: 'and', left, right: this.notExpr(), pos: op.pos };
    }
    return left;
  }
  notExpr(): FilterNode {
    if (this.keyword() === 'not' && this.tokens[this.i + 1]?.kind !== ')' && this.tokens[this.i + 1]?.kind !== 'eof') {
      const op = this.next();
      this.enter(op.pos);
      const operand = this.notExpr();
      this.leave();
      return { kind: 'not', operand, pos: op.pos };
    }
    return this.equality();
  }
  equality(): FilterNode {
    let left = this.relational();
    for (let k = this.keyword(); k === 'eq' || k === 'ne'; k = this.keyword()) {
      const op = this.next();
      left = { kind: 'binary', op: k, left, right: this.relational(), pos: op.pos };
    }
    return left;
  }
  relational(): FilterNode {
    let left = this.additive();
    for (let k = this.keyword(); k !== undefined && (RELATIONAL.has(k) || k === 'in' || k === 'has'); k = this.keyword()) {
      const op = this.next();
      if (k === 'has') throw this.error("The operator 'has' is not supported", op.pos);
      if (k === 'in') {
        left = { kind: 'in', left, list: this.list(), pos: op.pos };
      } else {
        left = { kind: 'binary', op: k as BinaryOp, left, right: this.additive(), pos: op.pos };
      }
    }
    return left;
  }
  /** `in (lit, lit, ...)`, `in ()`, or `in (expr)` (a parenthesised single expression). */
  list(): FilterNode[] {
    const open = this.expect('(', "'(' after 'in'");
    const items: FilterNode[] = [];
    if (this.peek().kind === ')') {
      this.next();
      return items;
    }
    for (;;) {
      const item = this.expression();
      items.push(item);
      if (items.length > FILTER_LIMITS.maxListItems) throw this.error(`More than ${FILTER_LIMITS.maxListItems} values in 'in'`, open.pos);
      if (this.peek().kind === ',') {
        const comma = this.next();
        if (items.some((x) => !isLiteral(x))) throw this.error("Only literals are allowed in a list after 'in'", comma.pos);
        continue;
      }
      this.expect(')', "',' or ')'");
      if (items.length > 1 && !isLiteral(item)) throw this.error("Only literals are allowed in a list after 'in'", item.pos);
      return items;
    }
  }
  additive(): FilterNode {
    let left = this.multiplicative();
    for (let k = this.keyword(); k === 'add' || k === 'sub'; k = this.keyword()) {
      const op = this.next();
      left = { kind: 'binary', op: k, left, right: this.multiplicative(), pos: op.pos };
    }
    return left;
  }
  multiplicative(): FilterNode {
    let left = this.unary();
    for (let k = this.keyword(); k !== undefined && MULTIPLICATIVE.has(k); k = this.keyword()) {
      const op = this.next();
      left = { kind: 'binary', op: k as BinaryOp, left, right: this.unary(), pos: op.pos };
    }
    return left;
  }
  unary(): FilterNode {
    if (this.peek().kind === '-') {
      const op = this.next();
      this.enter(op.pos);
      const operand = this.unary();
      this.leave();
      return { kind: 'negate', operand, pos: op.pos };
    }
    return this.primary();
  }
  primary(): FilterNode {
    const t = this.peek();
    switch (t.kind) {
      case '(': {
        this.next();
        const inner = this.expression();
        this.expect(')', "')'");
        return inner;
      }
      case 'string':
        this.next();
        return { kind: 'literal', type: 'string', value: t.text, pos: t.pos };
      case 'int':
      case 'decimal':
        this.next();
        return { kind: 'literal', type: t.kind, value: Number(t.text), pos: t.pos };
      case 'date':
      case 'datetime':
      case 'time':
      case 'guid':
        this.next();
        return { kind: 'literal', type: t.kind, value: t.text, pos: t.pos };
      case 'enum':
        this.next();
        return { kind: 'literal', type: 'enum', value: t.text, qualifier: t.qualifier!, pos: t.pos };
      case 'ident':
        return this.identifier();
      default:
        throw this.error(`Expected an expression but found ${describe(t)}`, t.pos);
    }
  }
  identifier(): FilterNode {
    const t = this.next();
    const lower = t.text.toLowerCase();
    if (this.peek().kind === '(') {
      const open = this.next();
      this.enter(open.pos);
      const args: FilterNode[] = [];
      if (this.peek().kind !== ')') {
        for (;;) {
          args.push(this.expression());
          if (this.peek().kind === ',') {
            this.next();
            continue;
          }
          break;
        }
      }
      this.expect(')', "',' or ')'");
      this.leave();
      return { kind: 'call', name: lower, args, pos: t.pos };
    }
    if (lower === 'true' || lower === 'false') return { kind: 'literal', type: 'boolean', value: lower === 'true', pos: t.pos };
    if (lower === 'null') return { kind: 'literal', type: 'null', value: null, pos: t.pos };
    if (t.text === 'INF' || t.text === 'NaN') return { kind: 'literal', type: 'decimal', value: t.text === 'INF' ? Infinity : NaN, pos: t.pos };
    if (RESERVED.has(lower)) throw this.error(`Expected an expression but found the operator '${t.text}'`, t.pos);
    if (t.text.includes('.')) throw this.error(`Qualified name '${t.text}' is not supported here`, t.pos);
    const path = [t.text];
    while (this.peek().kind === '/') {
      this.next();
      const seg = this.expect('ident', 'a property name after /');
      path.push(seg.text);
    }
    return { kind: 'property', path, pos: t.pos };
  }
}

/** A literal, or a negated numeric literal (`-INF`, `- 5`). */
export function isLiteral(n: FilterNode): boolean {
  return n.kind === 'literal' || (n.kind === 'negate' && n.operand.kind === 'literal' && typeof n.operand.value === 'number');
}

/** How a token is named in messages. */
export function describe(t: Token): string {
  if (t.kind === 'eof') return 'the end of the expression';
  if (t.kind === 'string') return `'${t.text}'`;
  return `'${t.text}'`;
}

function children(n: FilterNode): FilterNode[] {
  switch (n.kind) {
    case 'binary':
      return [n.left, n.right];
    case 'not':
    case 'negate':
      return [n.operand];
    case 'in':
      return [n.left, ...n.list];
    case 'call':
      return n.args;
    default:
      return [];
  }
}

/** Refuses a tree taller or larger than FILTER_LIMITS (iteratively: the walk itself cannot overflow). */
function checkBudget(roots: FilterNode[], option: string) {
  let nodes = 0;
  const stack: { node: FilterNode; height: number }[] = roots.map((node) => ({ node, height: 1 }));
  while (stack.length > 0) {
    const { node, height } = stack.pop()!;
    if (++nodes > FILTER_LIMITS.maxNodes) throw syntaxError(option, `Expression has more than ${FILTER_LIMITS.maxNodes} terms`, node.pos);
    if (height > FILTER_LIMITS.maxHeight) {
      throw syntaxError(option, `Expression nests more than ${FILTER_LIMITS.maxHeight} operators`, node.pos);
    }
    for (const child of children(node)) stack.push({ node: child, height: height + 1 });
  }
}

function checkLength(input: string, option: string) {
  if (input.length > FILTER_LIMITS.maxLength) throw syntaxError(option, `Expression longer than ${FILTER_LIMITS.maxLength} characters`, FILTER_LIMITS.maxLength);
}

/** Parses a $filter value (already percent-decoded) into an AST; 400 with position on a syntax error. */
export function parseFilter(input: string, option = '$filter'): FilterNode {
  checkLength(input, option);
  const p = new Parser(tokenize(input, option), option);
  if (p.peek().kind === 'eof') throw p.error('Empty expression', 0);
  const node = p.expression();
  const rest = p.peek();
  if (rest.kind !== 'eof') throw p.error(`Unexpected ${describe(rest)}`, rest.pos);
  checkBudget([node], option);
  return node;
}

/** Parses a $orderby value: comma-separated expressions, each optionally followed by asc or desc. */
export function parseOrderby(input: string, option = '$orderby'): OrderbyItem[] {
  checkLength(input, option);
  const p = new Parser(tokenize(input, option), option);
  const items: OrderbyItem[] = [];
  for (;;) {
    const start = p.peek();
    if (start.kind === 'eof') throw p.error('Expected a property to sort by', start.pos);
    const expr = p.expression();
    let desc = false;
    const k = p.keyword();
    if (k === 'asc' || k === 'desc') {
      p.next();
      desc = k === 'desc';
    }
    items.push({ expr, desc, pos: start.pos });
    if (items.length > FILTER_LIMITS.maxOrderbyItems) throw p.error(`More than ${FILTER_LIMITS.maxOrderbyItems} sort keys`, start.pos);
    const t = p.next();
    if (t.kind === 'eof') {
      checkBudget(items.map((item) => item.expr), option);
      return items;
    }
    if (t.kind !== ',') throw p.error(`Expected ',' or the end of ${option} but found ${describe(t)}`, t.pos);
  }
}
