/**
 * Resource-path parser below the service root: `/blacklist`, `/blacklist(5)`, `/blacklist(Id=5)`,
 * `/surveys('p123')`, `/groups(5)/Controller.GetInterviewers(callCenterId=1)`,
 * `/blacklist/Controller.Check(telephoneNumber='...')`, `/blacklist/Controller.Import`, `/blacklist/$count`,
 * `/$metadata`, `/`.
 * Literals are kept raw here and typed against the model / FunctionDef by `typedKey` and `bindArguments`.
 */
import { badRequest, notFound } from '../errors.ts';
import type { EdmType, EntityModel, FunctionDef } from './model.ts';
import { resolveProperty } from './compile-sql.ts';

/** A literal in a key predicate or a function argument, as written. */
export type PathLiteral =
  | { kind: 'string'; value: string; pos: number }
  | { kind: 'number'; text: string; pos: number }
  | { kind: 'word'; text: string; pos: number }; // true, false, null, date-times

export interface PathOperation {
  /** Qualified name as written, e.g. `Controller.Check`. */
  name: string;
  args: { name: string; value: PathLiteral }[];
  pos: number;
}

export type ResourcePath =
  | { kind: 'service' }
  | { kind: 'metadata' }
  | {
      kind: 'resource';
      set: string;
      key?: { name?: string; value: PathLiteral; pos: number };
      operation?: PathOperation;
      /** The path ends in `/$count` (the number of entities, docs/cati-api.md#generic-clients). */
      count?: boolean;
    };

const fail = (message: string, pos: number) => badRequest(`${message.replace(/\uffff/g, '/')} in the resource path at position ${pos}`);

/** Stands for a `/` written as such in the URL (a `%2F` decodes to an ordinary `/` inside a string). */
const SEP = '\uffff';

const WORD_LITERAL =
  /^(true|false|null|-?INF|NaN|\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?|\d{2}:\d{2}(:\d{2}(\.\d+)?)?|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;

class Scanner {
  i = 0;
  constructor(readonly s: string) {}
  peek(): string | undefined {
    return this.s[this.i];
  }
  eat(c: string): boolean {
    if (this.s[this.i] === c) {
      this.i++;
      return true;
    }
    return false;
  }
  expect(c: string) {
    if (!this.eat(c)) throw fail(`Expected '${c}' but found ${this.peek() === undefined ? 'the end' : `'${this.peek()}'`}`, this.i);
  }
  name(): string {
    const m = /[A-Za-z_$][A-Za-z0-9_.]*/y;
    m.lastIndex = this.i;
    const r = m.exec(this.s);
    if (!r) throw fail('Expected a name', this.i);
    this.i += r[0].length;
    return r[0];
  }
  literal(): PathLiteral {
    const pos = this.i;
    if (this.eat("'")) {
      let v = '';
      for (;;) {
        const c = this.peek();
        if (c === undefined || c === SEP) throw fail('Unterminated string literal', pos);
        this.i++;
        if (c === "'") {
          if (this.eat("'")) {
            v += "'";
            continue;
          }
          return { kind: 'string', value: v, pos };
        }
        v += c;
      }
    }
    const m = /[^,)'(\uffff]+/y;
    m.lastIndex = this.i;
    const r = m.exec(this.s);
    if (!r) throw fail('Expected a value', pos);
    this.i += r[0].length;
    const text = r[0];
    if (/^[-+]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) return { kind: 'number', text, pos };
    if (!WORD_LITERAL.test(text)) throw fail(`Invalid literal '${text}'`, pos);
    return { kind: 'word', text, pos };
  }
}

/** Parses a percent-encoded path below the service root (e.g. req.path of the /cati router). */
export function parseResourcePath(rawPath: string): ResourcePath {
  let path: string;
  try {
    path = rawPath.split('/').map(decodeURIComponent).join(SEP);
  } catch {
    throw badRequest('The resource path is not valid percent-encoding');
  }
  if (rawPath.includes(SEP) || path.split(SEP).length !== rawPath.split('/').length) {
    throw badRequest('The resource path contains a reserved character (U+FFFF)');
  }
  if (path === '' || path === SEP) return { kind: 'service' };
  if (path === `${SEP}$metadata`) return { kind: 'metadata' };
  const s = new Scanner(path);
  s.expect(SEP);
  const segment = /[^(\uffff]*/y;
  segment.lastIndex = s.i;
  const set = segment.exec(path)![0];
  // Not an entity set name (and so not one of ours): 404, like any unknown resource.
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(set)) throw notFound(`No resource '${set.replace(/\uffff/g, '/')}' in this service`);
  s.i += set.length;
  const out: Extract<ResourcePath, { kind: 'resource' }> = { kind: 'resource', set };
  if (s.eat('(')) {
    const pos = s.i;
    let name: string | undefined;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(path.slice(s.i))) {
      name = s.name();
      s.expect('=');
    }
    out.key = { name, value: s.literal(), pos };
    if (s.peek() === ',') throw fail('Composite keys are not supported', s.i);
    s.expect(')');
  }
  const countSegment = () => {
    if (path.slice(s.i) !== '$count' && path.slice(s.i) !== `$count${SEP}`) return false;
    out.count = true;
    s.i = path.length;
    return true;
  };
  if (s.eat(SEP) && s.peek() !== undefined && !countSegment()) {
    const pos = s.i;
    const name = s.name();
    if (!name.includes('.')) throw fail(`Expected a bound operation such as Controller.${name}() after '/'`, pos);
    const op: PathOperation = { name, args: [], pos };
    if (s.eat('(')) {
      if (!s.eat(')')) {
        for (;;) {
          const argPos = s.i;
          const argName = s.name();
          if (argName.includes('.')) throw fail(`Invalid parameter name '${argName}'`, argPos);
          s.expect('=');
          op.args.push({ name: argName, value: s.literal() });
          if (s.eat(',')) continue;
          s.expect(')');
          break;
        }
      }
    }
    out.operation = op;
    if (s.eat(SEP)) countSegment();
  }
  if (s.i < path.length) throw fail(`Unexpected '${path.slice(s.i, s.i + 20)}'`, s.i);
  return out;
}

/** Types one literal as an EDM value; 400 naming `what` when it does not fit. */
export function typedLiteral(lit: PathLiteral, type: EdmType, what: string): unknown {
  const bad = (expected: string) => fail(`${what} must be ${expected}`, lit.pos);
  if (lit.kind === 'word' && lit.text === 'null') return null;
  switch (type) {
    case 'Edm.Int32':
    case 'Edm.Int64': {
      if (lit.kind !== 'number' || !/^-?\d+$/.test(lit.text)) throw bad('an integer');
      const n = Number(lit.text);
      if (type === 'Edm.Int32' && (n < -2147483648 || n > 2147483647)) throw bad('an int32 (-2147483648..2147483647)');
      if (!Number.isSafeInteger(n)) throw bad('an integer within ±9007199254740991');
      return n;
    }
    case 'Edm.Decimal':
    case 'Edm.Double':
      if (lit.kind !== 'number') throw bad('a number');
      return Number(lit.text);
    case 'Edm.Boolean':
      if (lit.kind !== 'word' || (lit.text !== 'true' && lit.text !== 'false')) throw bad('true or false');
      return lit.text === 'true';
    case 'Edm.DateTimeOffset': {
      const text = lit.kind === 'string' ? lit.value : lit.text;
      const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text) ? Date.parse(/[Zz]|[+-]\d{2}:\d{2}$/.test(text) ? text : `${text}Z`) : NaN;
      if (!Number.isFinite(ms)) throw bad('a date-time such as 2026-11-02T09:15:00Z');
      return ms;
    }
    default:
      if (lit.kind !== 'string') throw bad("a string in single quotes, e.g. 'abc'");
      return lit.value;
  }
}

/** The key of the path typed by the model's key property: wrong type or out of int32 range → 400. */
export function typedKey(model: EntityModel, key: NonNullable<Extract<ResourcePath, { kind: 'resource' }>['key']>): unknown {
  const keyName = model.key[0];
  if (!keyName || model.key.length !== 1) throw fail(`${model.setName ?? model.typeName} has no single key`, key.pos);
  if (key.name !== undefined && key.name !== keyName) throw fail(`Unknown key '${key.name}'; the key is '${keyName}'`, key.pos);
  const prop = resolveProperty(model, keyName, key.pos, 'key');
  const lit = key.value;
  if (prop.type === 'Edm.Int64' && lit.kind === 'number' && /^-?\d{16,19}$/.test(lit.text) && !Number.isSafeInteger(Number(lit.text))) {
    // A well-formed int64 beyond 2^53 can never have been assigned here (ids come in sequence): unknown, not malformed.
    const big = BigInt(lit.text);
    if (big >= -(2n ** 63n) && big < 2n ** 63n) throw notFound(`No ${model.typeName} with ${keyName} ${lit.text}`);
  }
  const value = typedLiteral(lit, prop.type, `The key ${keyName}`);
  if (value === null) throw fail(`The key ${keyName} cannot be null`, key.pos);
  return value;
}

/** Binds the path arguments to the FunctionDef's parameters: missing, extra or duplicate → 400. */
export function bindArguments(def: FunctionDef, op: PathOperation): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const arg of op.args) {
    const param = def.parameters.find((p) => p.name === arg.name);
    if (!param) {
      const folded = def.parameters.find((p) => p.name.toLowerCase() === arg.name.toLowerCase());
      const hint = folded ? `; did you mean '${folded.name}'?` : def.parameters.length ? `; expected ${def.parameters.map((p) => p.name).join(', ')}` : '; it takes none';
      throw fail(`Unknown parameter '${arg.name}' of ${def.name}${hint}`, arg.value.pos);
    }
    if (arg.name in out) throw fail(`Parameter '${arg.name}' given twice`, arg.value.pos);
    out[arg.name] = typedLiteral(arg.value, param.type, `Parameter ${arg.name}`);
  }
  for (const p of def.parameters) {
    if (!(p.name in out)) throw fail(`Missing parameter '${p.name}' of ${def.name}`, op.pos);
  }
  return out;
}
