/**
 * The per-model serializer: a function compiled once per model, `$select` and JSON format that
 * writes an entity's wire JSON straight from a raw row (property name → SQL value), byte-identical to
 * `JSON.stringify(formatEntity(...))` for minimal and no metadata; full metadata keeps the generic path.
 */
import type { Row } from './collection-query.ts';
import type { JsonFormat } from './format-negotiation.ts';
import type { EntityModel, PropertyDef } from './model.ts';

/** Writes one row as the JSON text of the entity (an object literal). */
export type EntityWriter = (row: Row) => string;

type ValueWriter = (value: unknown) => string;

// Characters JSON.stringify would escape (controls, quote, backslash, lone surrogates).
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** JSON text of any value; plain strings and finite numbers without the generic call. */
function json(v: unknown): string {
  if (typeof v === 'string') return NEEDS_ESCAPE.test(v) ? JSON.stringify(v) : `"${v}"`;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return JSON.stringify(v) ?? 'null';
}

const DAY_MS = 86_400_000;
const PAD = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
let cachedDay = NaN;
let cachedPrefix = '';

/**
 * `Date.prototype.toISOString` of whole epoch milliseconds, with the `YYYY-MM-DDT` of the last day seen
 * kept (rows of a page mostly share a day); other years and fractions take toISOString itself (which
 * throws on NaN and out-of-range times, as `new Date(ms).toISOString()` does).
 */
export function isoString(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  if (day !== cachedDay) {
    const full = new Date(ms).toISOString();
    if (full.length !== 24 || !Number.isInteger(ms)) return full;
    cachedDay = day;
    cachedPrefix = full.slice(0, 11);
  }
  let rest = ms - day * DAY_MS;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const sec = Math.floor(rest / 1000);
  return `${cachedPrefix}${PAD[h]!.slice(1)}:${PAD[m]!.slice(1)}:${PAD[sec]!.slice(1)}.${PAD[rest - sec * 1000]}Z`;
}

function dateTime(value: unknown): string {
  if (typeof value === 'string') return json(value);
  const ms = Number(value);
  if (!Number.isInteger(ms)) {
    const d = new Date(ms);
    return Number.isNaN(d.getTime()) ? 'null' : `"${d.toISOString()}"`;
  }
  return Math.abs(ms) > 8.64e15 ? 'null' : `"${isoString(ms)}"`;
}

/** The writer of one property's non-null value, as format.ts formatValue then JSON.stringify would write it. */
function valueWriter(p: PropertyDef, ieee754: boolean): ValueWriter {
  let write: ValueWriter = json;
  if (!p.virtual && !p.collection) {
    if (p.type === 'Edm.Boolean') write = (v) => (typeof v === 'boolean' ? String(v) : Number(v) !== 0 ? 'true' : 'false');
    else if (p.type === 'Edm.DateTimeOffset') write = dateTime;
    else if (ieee754 && (p.type === 'Edm.Int64' || p.type === 'Edm.Decimal')) write = (v) => json(String(v));
  }
  return write;
}

interface Part {
  name: string;
  key: string;
  optional: boolean;
  write: ValueWriter;
}

function partsOf(model: EntityModel, select: string[] | undefined, format: JsonFormat): Part[] {
  return model.properties
    .filter((p) => !p.writeOnly && (!select || select.includes(p.name)))
    .map((p) => ({ name: p.name, key: `${JSON.stringify(p.name)}:`, optional: !!p.virtual, write: valueWriter(p, format.ieee754) }));
}

/** `"@odata.etag":"W/\"<version>\""`, a numeric version written without the generic call. */
const etagText = (v: unknown) => `"@odata.etag":${typeof v === 'number' && Number.isFinite(v) ? `"W/\\"${v}\\""` : JSON.stringify(`W/"${String(v)}"`)}`;

function compile(model: EntityModel, select: string[] | undefined, format: JsonFormat): EntityWriter {
  const parts = partsOf(model, select, format);
  const etag = format.metadata !== 'none' && !!model.etagColumn;
  return (row) => {
    let out = '{';
    let sep = '';
    if (etag) {
      const v = row['@etag'];
      if (v !== undefined && v !== null) {
        out += etagText(v);
        sep = ',';
      }
    }
    for (const part of parts) {
      if (part.optional && !(part.name in row)) continue;
      const v = row[part.name];
      out += sep + part.key + (v === null || v === undefined ? 'null' : part.write(v));
      sep = ',';
    }
    return `${out}}`;
  };
}

/** Writes one positional row (the columns of a RowTable) as the JSON text of the entity. */
export type TableWriter = (values: unknown[]) => string;

/**
 * As compile, over positional rows: each property read at its column's index (absent columns left out, as
 * absent keys are). Compiled to one concatenation per row (the fast-json-stringify technique): the property
 * names are the model's own, written in as JSON string literals; values go through their value writers.
 */
function compileTable(model: EntityModel, select: string[] | undefined, format: JsonFormat, columns: readonly string[]): TableWriter {
  const parts = partsOf(model, select, format)
    .map((p) => ({ ...p, at: columns.indexOf(p.name) }))
    .filter((p) => p.at >= 0 || !p.optional);
  const etagAt = format.metadata !== 'none' && model.etagColumn ? columns.indexOf('@etag') : -1;
  const literal = (text: string) => JSON.stringify(text);
  const value = (at: number, i: number) => (at < 0 ? "'null'" : `(v[${at}] == null ? 'null' : W[${i}](v[${at}]))`);
  const body = parts.map((p, i) => `${literal((i ? ',' : '') + p.key)} + ${value(p.at, i)}`).join(' + ');
  const open = etagAt < 0 ? "'{'" : `(v[${etagAt}] == null ? '{' : '{' + E(v[${etagAt}])${parts.length ? " + ','" : ''})`;
  const build = new Function('W', 'E', `return (v) => ${open} + ${body || "''"} + '}';`) as (w: ValueWriter[], e: ValueWriter) => TableWriter;
  return build(
    parts.map((p) => p.write),
    etagText,
  );
}

/** Compiled writers per model and shape, at most 200 shapes a model (oldest dropped first). */
function cached<W>(cache: WeakMap<EntityModel, Map<string, W>>, model: EntityModel, shape: string, build: () => W): W {
  let byShape = cache.get(model);
  if (!byShape) cache.set(model, (byShape = new Map()));
  let writer = byShape.get(shape);
  if (writer === undefined) {
    if (byShape.size >= 200) byShape.delete(byShape.keys().next().value!);
    byShape.set(shape, (writer = build()));
  }
  return writer;
}

const shapeOf = (select: string[] | undefined, format: JsonFormat) => `${format.metadata}|${format.ieee754 ? 1 : 0}|${select?.join(',') ?? '*'}`;
const entityWriters = new WeakMap<EntityModel, Map<string, EntityWriter>>();
const tableWriters = new WeakMap<EntityModel, Map<string, TableWriter>>();

/** The cached writer of a model for a `$select` and format; undefined for full metadata (generic path). */
export function entityWriter(model: EntityModel, select: string[] | undefined, format: JsonFormat): EntityWriter | undefined {
  if (format.metadata === 'full') return undefined;
  return cached(entityWriters, model, shapeOf(select, format), () => compile(model, select, format));
}

/** The cached writer of positional rows with these columns (see entityWriter); undefined for full metadata. */
export function tableWriter(model: EntityModel, select: string[] | undefined, format: JsonFormat, columns: readonly string[]): TableWriter | undefined {
  if (format.metadata === 'full') return undefined;
  return cached(tableWriters, model, `${shapeOf(select, format)}|${columns.join(',')}`, () => compileTable(model, select, format, columns));
}
