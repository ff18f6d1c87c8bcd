/**
 * Lexer of the OData expression language used by $filter and $orderby (OData 4.01 URL conventions §5.1.1).
 * Works on the percent-decoded option value; every token carries its 0-based character position.
 */
import { badRequest } from '../errors.ts';

export type TokenKind =
  | 'ident' // property, operator keyword, function name, or a dotted qualified name
  | 'string'
  | 'int'
  | 'decimal'
  | 'date'
  | 'datetime'
  | 'time'
  | 'guid'
  | 'enum' // Qualified.Type'Value'
  | '('
  | ')'
  | ','
  | '/'
  | '-'
  | 'eof';

export interface Token {
  kind: TokenKind;
  /** Raw text for idents and numbers; the unescaped value for strings; the member name for enums. */
  text: string;
  /** For enums: the qualified type name. */
  qualifier?: string;
  pos: number;
}

/** An OData syntax error that names the option and the 0-based position. */
export function syntaxError(option: string, message: string, pos: number) {
  return badRequest(`${message} in ${option} at position ${pos}`);
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
/** `$count`, `$it`: system names ($apply's `$count as Alias`); compile-sql.ts rejects them as properties. */
const SYSTEM_IDENT = /\$[A-Za-z_][A-Za-z0-9_]*/y;
const DATETIME = /(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,12})?)?(Z|[+-]\d{2}:\d{2})/y;
const DATE = /(\d{4})-(\d{2})-(\d{2})/y;
const TIME = /(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,12})?)?/y;
const GUID = /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/y;
const NUMBER = /[-+]?\d+(\.\d+)?([eE][+-]?\d+)?/y;

function match(re: RegExp, s: string, pos: number): RegExpExecArray | null {
  re.lastIndex = pos;
  return re.exec(s);
}

const isIdentChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_.]/.test(c);

/** True when y-m-d is a real calendar date (proleptic Gregorian, year 0000 allowed). */
export function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
  return d <= days;
}

/** Hours 00-23, minutes 00-59, seconds 00-59 or a leap second 60 (ABNF `second`). */
function validTime(h: number, mi: number, s: number): boolean {
  return h <= 23 && mi <= 59 && s <= 60;
}

function validOffset(off: string): boolean {
  if (off === 'Z') return true;
  const h = Number(off.slice(1, 3));
  const m = Number(off.slice(4, 6));
  return h <= 23 && m <= 59;
}

/** Splits an expression into tokens; throws a 400 naming the position of the first bad character. */
export function tokenize(input: string, option = '$filter'): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = input.length;
  // The ABNF allows whitespace only between tokens, never around the whole expression.
  if (/^[ \t]/.test(input)) throw syntaxError(option, 'Unexpected whitespace', 0);
  if (/[ \t]$/.test(input)) throw syntaxError(option, 'Unexpected whitespace', input.search(/[ \t]+$/));
  while (i < n) {
    const c = input[i]!;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '(' || c === ')' || c === ',' || c === '/') {
      tokens.push({ kind: c, text: c, pos: i });
      i++;
      continue;
    }
    if (c === "'") {
      const start = i;
      let value = '';
      i++;
      for (;;) {
        if (i >= n) throw syntaxError(option, 'Unterminated string literal', start);
        if (input[i] === "'") {
          if (input[i + 1] === "'") {
            value += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += input[i];
        i++;
      }
      tokens.push({ kind: 'string', text: value, pos: start });
      continue;
    }
    if (/[0-9]/.test(c) || ((c === '-' || c === '+') && /[0-9]/.test(input[i + 1] ?? ''))) {
      const start = i;
      let m: RegExpExecArray | null;
      const signed = c === '-' || c === '+';
      if (!signed && (m = match(DATETIME, input, i))) {
        const [, y, mo, d, h, mi, s, , off] = m;
        if (!validDate(+y!, +mo!, +d!) || !validTime(+h!, +mi!, +(s ?? 0)) || !validOffset(off!)) {
          throw syntaxError(option, `Invalid date-time '${m[0]}'`, start);
        }
        tokens.push({ kind: 'datetime', text: m[0], pos: start });
        i += m[0].length;
      } else if (!signed && (m = match(GUID, input, i))) {
        tokens.push({ kind: 'guid', text: m[0], pos: start });
        i += m[0].length;
      } else if (!signed && (m = match(DATE, input, i))) {
        if (!validDate(+m[1]!, +m[2]!, +m[3]!)) throw syntaxError(option, `Invalid date '${m[0]}'`, start);
        tokens.push({ kind: 'date', text: m[0], pos: start });
        i += m[0].length;
      } else if (!signed && (m = match(TIME, input, i))) {
        if (!validTime(+m[1]!, +m[2]!, +(m[3] ?? 0))) throw syntaxError(option, `Invalid time of day '${m[0]}'`, start);
        tokens.push({ kind: 'time', text: m[0], pos: start });
        i += m[0].length;
      } else {
        m = match(NUMBER, input, i)!;
        const decimal = m[1] !== undefined || m[2] !== undefined;
        tokens.push({ kind: decimal ? 'decimal' : 'int', text: m[0], pos: start });
        i += m[0].length;
      }
      if (isIdentChar(input[i]) || input[i] === "'") throw syntaxError(option, `Unexpected character '${input[i]}'`, i);
      continue;
    }
    if (c === '-') {
      tokens.push({ kind: '-', text: '-', pos: i });
      i++;
      continue;
    }
    const id = match(IDENT, input, i) ?? match(SYSTEM_IDENT, input, i);
    if (id) {
      const start = i;
      let text = id[0];
      i += text.length;
      // Dotted qualified names (Namespace.Type, Namespace.Function).
      while (input[i] === '.' && match(IDENT, input, i + 1)) {
        const seg = match(IDENT, input, i + 1)![0];
        text += '.' + seg;
        i += 1 + seg.length;
      }
      if (input[i] === "'" && text.includes('.')) {
        // Enum literal: Qualified.Type'Member'
        const end = input.indexOf("'", i + 1);
        if (end < 0) throw syntaxError(option, 'Unterminated enum literal', start);
        const member = input.slice(i + 1, end);
        if (!/^([A-Za-z_][A-Za-z0-9_]*|[-+]?\d+)(,([A-Za-z_][A-Za-z0-9_]*|[-+]?\d+))*$/.test(member)) {
          throw syntaxError(option, `Invalid enum value '${member}'`, i + 1);
        }
        tokens.push({ kind: 'enum', text: member, qualifier: text, pos: start });
        i = end + 1;
        continue;
      }
      if (input[i] === "'") throw syntaxError(option, `Unexpected quote after '${text}'`, i);
      tokens.push({ kind: 'ident', text, pos: start });
      continue;
    }
    throw syntaxError(option, `Unexpected character '${c}'`, i);
  }
  tokens.push({ kind: 'eof', text: '', pos: n });
  return tokens;
}
