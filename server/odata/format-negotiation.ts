/**
 * Content negotiation of the OData service, in one place (docs/cati-api.md#metadata): `$format` (which wins over
 * `Accept`) or `Accept` choose JSON with `odata.metadata=minimal|none|full` and `IEEE754Compatible`,
 * the CSDL XML of `$metadata`, or the text/plain of `/$count`; nothing acceptable → 406.
 *
 * Export formats (`$format=csv|xlsx`, `Accept: text/csv` or the xlsx media type) are recognised here
 * too: when the dispatcher serves them (`exports` lists their names) they come back as
 * `{kind: 'export', name}`, else they are not acceptable (406).
 */
import { ApiError } from '../errors.ts';

export type MetadataLevel = 'minimal' | 'none' | 'full';

/** OData JSON with its format parameters. */
export interface JsonFormat {
  kind: 'json';
  metadata: MetadataLevel;
  /** `IEEE754Compatible=true`: Edm.Int64 / Edm.Decimal values and @odata.count written as strings. */
  ieee754: boolean;
}

export type ResponseFormat = JsonFormat | { kind: 'export'; name: string } | { kind: 'xml' } | { kind: 'text' };

/** What a resource can be served as: JSON (data), CSDL XML ($metadata), text/plain (/$count). */
export type Representation = 'json' | 'xml' | 'text';

/** Media types of the export formats by `$format` name. */
export const EXPORT_MEDIA_TYPES: Readonly<Record<string, string>> = {
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/**
 * Export formats the dispatcher serves besides JSON (names of EXPORT_MEDIA_TYPES). Collection routes stream
 * them (export-stream.ts); other resources answer 406.
 */
export const EXPORT_FORMATS: readonly string[] = ['csv', 'xlsx'];

/** The default answer: JSON, minimal metadata. */
export const MINIMAL_JSON: JsonFormat = { kind: 'json', metadata: 'minimal', ieee754: false };

interface MediaRange {
  type: string; // e.g. application/json, */*
  params: Map<string, string>; // lower-case names and values, without q
  q: number;
  pos: number;
}

export const notAcceptable = (message: string) => new ApiError('NotAcceptable', message);

function parseRange(text: string, pos: number): MediaRange | undefined {
  const [type, ...rest] = text.split(';').map((s) => s.trim());
  if (!type || !/^[a-z0-9!#$&^_.+*-]+\/[a-z0-9!#$&^_.+*-]+$/i.test(type)) return undefined;
  const params = new Map<string, string>();
  let q = 1;
  for (const p of rest) {
    if (p === '') continue;
    const eq = p.indexOf('=');
    const name = (eq < 0 ? p : p.slice(0, eq)).trim().toLowerCase();
    const value = (eq < 0 ? '' : p.slice(eq + 1)).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (name === 'q') {
      q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : 0;
    } else params.set(name, value);
  }
  return { type: type.toLowerCase(), params, q, pos };
}

/** Parses an Accept header (or a `$format` media type) into ranges, best first. */
function parseAccept(header: string): MediaRange[] {
  const ranges = header
    .split(',')
    .map((part, i) => parseRange(part, i))
    .filter((r): r is MediaRange => r !== undefined && r.q > 0);
  const specificity = (r: MediaRange) => (r.type === '*/*' ? 0 : r.type.endsWith('/*') ? 1 : 2);
  return ranges.sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.pos - b.pos);
}

const BOOL = new Set(['true', 'false']);

/**
 * The JSON format a media range asks for, or a reason why it cannot be served (an unknown or
 * unsupported parameter). `odata.` may be left out of the parameter names (OData 4.01).
 */
function jsonFormatOf(range: MediaRange): JsonFormat | string {
  const out: JsonFormat = { ...MINIMAL_JSON };
  for (const [rawName, value] of range.params) {
    const name = rawName.replace(/^odata\./, '');
    if (name === 'metadata') {
      if (value !== 'minimal' && value !== 'none' && value !== 'full') return `odata.metadata=${value} is not supported (minimal, none or full)`;
      out.metadata = value;
    } else if (name === 'streaming' || name === 'exponentialdecimals') {
      if (!BOOL.has(value)) return `${rawName}=${value} is not supported (true or false)`;
    } else if (name === 'ieee754compatible') {
      if (!BOOL.has(value)) return `IEEE754Compatible=${value} is not supported (true or false)`;
      out.ieee754 = value === 'true';
    } else if (name === 'charset') {
      if (value !== 'utf-8') return `charset=${value} is not supported (utf-8)`;
    } else {
      return `the format parameter '${rawName}' is not supported`;
    }
  }
  return out;
}

const matches = (range: string, type: string) =>
  range === '*/*' || range === type || (range.endsWith('/*') && type.startsWith(range.slice(0, -1)));

/** What one range yields for a resource of this representation; a string says why not. */
function formatFor(range: MediaRange, representation: Representation, exports: readonly string[]): ResponseFormat | string | undefined {
  if (representation === 'xml') {
    return matches(range.type, 'application/xml') || matches(range.type, 'text/xml') ? { kind: 'xml' } : undefined;
  }
  if (representation === 'text') return matches(range.type, 'text/plain') ? { kind: 'text' } : undefined;
  if (matches(range.type, 'application/json')) return jsonFormatOf(range);
  for (const name of exports) {
    if (range.type === EXPORT_MEDIA_TYPES[name]) return { kind: 'export', name };
  }
  return undefined;
}

const WHAT: Record<Representation, string> = {
  json: 'application/json',
  xml: 'application/xml (CSDL)',
  text: 'text/plain',
};

/** The `$format` value as a media range: `json`, `xml`, `csv`, `xlsx` or a media type with parameters. */
function formatOptionRange(value: string): MediaRange | undefined {
  const [head, ...params] = value.split(';');
  const name = head!.trim().toLowerCase();
  const type = name === 'json' ? 'application/json' : name === 'xml' ? 'application/xml' : (EXPORT_MEDIA_TYPES[name] ?? name);
  return parseRange([type, ...params].join(';'), 0);
}

/**
 * Chooses the response format of a request: `$format` when given (a bad one → 406), else the best
 * acceptable range of `Accept` (absent → the default of the representation), else 406.
 */
export function negotiate(
  input: { accept?: string; format?: string },
  representation: Representation,
  exports: readonly string[] = [],
): ResponseFormat {
  const fallback: ResponseFormat = representation === 'json' ? MINIMAL_JSON : { kind: representation };
  if (input.format !== undefined) {
    const range = formatOptionRange(input.format);
    const got = range ? formatFor(range, representation, exports) : undefined;
    if (typeof got === 'object') return got;
    const lower = input.format.trim().toLowerCase();
    const exportName = Object.keys(EXPORT_MEDIA_TYPES).find((n) => lower === n || lower.startsWith(EXPORT_MEDIA_TYPES[n]!));
    if (exportName && representation === 'json') throw notAcceptable(`$format=${exportName} is not served on this resource`);
    throw notAcceptable(`$format=${input.format} cannot be served${typeof got === 'string' ? `: ${got}` : ''}; this resource is ${WHAT[representation]}`);
  }
  const header = input.accept?.trim();
  if (!header) return fallback;
  const reasons: string[] = [];
  for (const range of parseAccept(header)) {
    const got = formatFor(range, representation, exports);
    if (typeof got === 'object') return got;
    if (typeof got === 'string') reasons.push(got);
  }
  throw notAcceptable(`None of the media types in Accept can be served${reasons.length ? ` (${reasons.join('; ')})` : ''}; this resource is ${WHAT[representation]}`);
}

/** The Content-Type of a JSON answer: the metadata level, and IEEE754Compatible echoed when asked. */
export function jsonContentType(format: JsonFormat): string {
  return `application/json; odata.metadata=${format.metadata}${format.ieee754 ? '; IEEE754Compatible=true' : ''}`;
}
