/**
 * OData system query options ($apply, $filter, $orderby, $select, $top, $skip, $count, $format, $skiptoken) parsed
 * once per request into a typed object. Non-$ parameters are kept for the handler (e.g. startTime).
 */
import { badRequest } from '../errors.ts';
import { parseApply, type Transformation } from './apply-parse.ts';
import { parseFilter, parseOrderby, type FilterNode, type OrderbyItem } from './parse-filter.ts';

/**
 * docs/limits.md#limits: `$top` at most 10000; without `$top` a page holds at most 1000 rows. With `$format=csv|xlsx`
 * (an export, docs/cati-api.md#exports, docs/limits.md#limits) `$top` may go up to the export's row limit.
 */
export const QUERY_LIMITS = { maxTop: 10000, pageSize: 1000, maxExportTop: 1_048_575 };

/** `$format` values that ask for an export (format-negotiation.ts EXPORT_MEDIA_TYPES, by name or media type). */
const EXPORT_FORMAT = /^\s*(csv|xlsx|text\/csv|application\/vnd\.openxmlformats-officedocument\.spreadsheetml\.sheet)\s*(;|$)/i;

export interface QueryOptions {
  /** `$apply` transformations in order (apply-compile.ts runs them before the options below). */
  apply?: Transformation[];
  filter?: FilterNode;
  /** The `$filter` text as given (the key of the compiled-filter cache). */
  filterText?: string;
  orderby: OrderbyItem[];
  /** Property names from $select; undefined = all (also for `*`). */
  select?: string[];
  top?: number;
  skip?: number;
  count: boolean;
  skiptoken?: string;
  /** `$format` as given; format-negotiation.ts decides what it means (an unsupported one → 406). */
  format?: string;
  /** Query parameters without a `$` (function-specific, e.g. startTime), last value wins. */
  params: Record<string, string>;
}

const NOT_SUPPORTED = new Set(['$expand', '$search', '$compute', '$levels', '$deltatoken', '$schemaversion', '$index', '$id']);
const KNOWN = new Set(['$apply', '$filter', '$orderby', '$select', '$top', '$skip', '$count', '$format', '$skiptoken']);

const parsedFilters = new Map<string, FilterNode>();

/** parseFilter cached by text (at most 500, oldest dropped first); the tree is never mutated after parsing. */
function parseFilterCached(text: string): FilterNode {
  let node = parsedFilters.get(text);
  if (!node) {
    node = parseFilter(text);
    if (parsedFilters.size >= 500) parsedFilters.delete(parsedFilters.keys().next().value!);
    parsedFilters.set(text, node);
  }
  return node;
}

function nonNegativeInt(name: string, value: string, max?: number): number {
  if (!/^\d{1,10}$/.test(value)) throw badRequest(`${name} must be a non-negative integer, not '${value}'`);
  const n = Number(value);
  if (n > 2147483647) throw badRequest(`${name} must be at most 2147483647`);
  if (max !== undefined && n > max) throw badRequest(`${name} must be at most ${max}`);
  return n;
}

/**
 * Parses the query string of an OData request. `allowed` limits the system options (e.g. only $select and
 * $format on a single entity); anything else starting with `$` → 400. Syntax errors → 400 with position.
 */
export function parseQueryOptions(query: Record<string, unknown>, allowed: ReadonlySet<string> = KNOWN): QueryOptions {
  const out: QueryOptions = { orderby: [], count: false, params: {} };
  let top: string | undefined;
  for (const [rawName, rawValue] of Object.entries(query)) {
    if (Array.isArray(rawValue) && rawName.startsWith('$')) throw badRequest(`Query option ${rawName} is given more than once`);
    const value = Array.isArray(rawValue) ? String(rawValue[rawValue.length - 1]) : String(rawValue ?? '');
    if (!rawName.startsWith('$')) {
      out.params[rawName] = value;
      continue;
    }
    const name = rawName.toLowerCase();
    if (NOT_SUPPORTED.has(name)) throw badRequest(`Query option ${rawName} is not supported`);
    if (!KNOWN.has(name)) throw badRequest(`Unknown query option ${rawName}`);
    if (!allowed.has(name)) throw badRequest(`Query option ${rawName} is not supported on this resource`);
    switch (name) {
      case '$apply':
        out.apply = parseApply(value);
        break;
      case '$filter':
        out.filter = parseFilterCached(value);
        out.filterText = value;
        break;
      case '$orderby':
        out.orderby = parseOrderby(value);
        break;
      case '$select': {
        const names = value.split(',').map((s) => s.trim());
        if (names.some((n) => n === '')) throw badRequest('$select must be a comma-separated list of property names');
        out.select = names.includes('*') ? undefined : names;
        break;
      }
      case '$top':
        top = value;
        break;
      case '$skip':
        out.skip = nonNegativeInt('$skip', value);
        break;
      case '$count':
        if (value !== 'true' && value !== 'false') throw badRequest(`$count must be true or false, not '${value}'`);
        out.count = value === 'true';
        break;
      case '$format':
        out.format = value;
        break;
      case '$skiptoken':
        // Ours are base64url (see collection-query.ts); anything else cannot be one of them.
        if (!/^[A-Za-z0-9_-]+$/.test(value)) throw badRequest('Invalid $skiptoken: use the @odata.nextLink of the previous page');
        out.skiptoken = value;
        break;
    }
  }
  if (top !== undefined) {
    const exporting = out.format !== undefined && EXPORT_FORMAT.test(out.format);
    out.top = nonNegativeInt('$top', top, exporting ? QUERY_LIMITS.maxExportTop : QUERY_LIMITS.maxTop);
  }
  return out;
}

/** Options a single entity accepts. */
export const ENTITY_OPTIONS: ReadonlySet<string> = new Set(['$select', '$format']);
/** Options a non-collection function result accepts. */
export const PLAIN_OPTIONS: ReadonlySet<string> = new Set(['$format']);
/** Options `/{set}/$count` accepts (`$apply`: the count of the aggregated rows, docs/cati-api.md#apply). */
export const COUNT_OPTIONS: ReadonlySet<string> = new Set(['$filter', '$apply', '$format']);
/** Options a collection accepts. */
export const COLLECTION_OPTIONS: ReadonlySet<string> = KNOWN;
