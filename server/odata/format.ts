/**
 * OData JSON (v4) formatting: @odata.context, @odata.count, @odata.nextLink, @odata.etag, ISO 8601 UTC
 * times with milliseconds, booleans, enums as strings; the three metadata levels (none drops control
 * information, full adds @odata.id, @odata.editLink and @odata.type) and IEEE754Compatible; plus the
 * If-Match check.
 */
import { preconditionFailed } from '../errors.ts';
import type { Row } from './collection-query.ts';
import { MINIMAL_JSON, type JsonFormat } from './format-negotiation.ts';
import type { EntityModel, PropertyDef } from './model.ts';
import { NAMESPACE } from './model.ts';
import { isoString } from './wire-json.ts';

/** How entities are written: the negotiated JSON format, the service root, which sets can be edited. */
export interface WireOptions {
  format: JsonFormat;
  serviceRoot: string;
  /** What full metadata may link to: `id` when the set serves GET by key, `edit` when it accepts PUT/PATCH/DELETE. */
  links?: (setName: string) => { id: boolean; edit: boolean };
}

/** Epoch ms (or an ISO string) → `2026-11-02T09:15:00.000Z`; null stays null. */
export function formatDateTime(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  const ms = Number(value);
  if (Number.isInteger(ms) && Math.abs(ms) <= 8.64e15) return isoString(ms); // toISOString's answer, cheaper
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** One property value in its wire form (`ieee754`: Int64 and Decimal as strings). */
export function formatValue(prop: PropertyDef, value: unknown, ieee754 = false): unknown {
  if (value === undefined) return null;
  if (value === null || prop.virtual || prop.collection) return value;
  switch (prop.type) {
    case 'Edm.Boolean':
      return typeof value === 'boolean' ? value : Number(value) !== 0;
    case 'Edm.DateTimeOffset':
      return formatDateTime(value);
    case 'Edm.Int64':
    case 'Edm.Decimal':
      return ieee754 ? String(value) : value;
    default:
      return value;
  }
}

/**
 * The `@odata.type` a property needs in full metadata: every type a JSON value does not tell by itself
 * (JSON strings are Edm.String, whole numbers Edm.Int32 or Edm.Decimal, booleans Edm.Boolean).
 */
function propertyTypeAnnotation(p: PropertyDef): string | undefined {
  const base = p.complexType ? `${NAMESPACE}.${p.complexType}` : p.enumName ? `${NAMESPACE}.${p.enumName}` : p.type.replace(/^Edm\./, '');
  if (p.collection) return `#Collection(${base})`;
  if (p.complexType || p.enumName) return `#${base}`;
  return ['Int64', 'DateTimeOffset', 'Decimal', 'Double'].includes(base) ? `#${base}` : undefined;
}

/** Weak ETag of a row version: `W/"3"`. */
export function weakEtag(version: unknown): string {
  return `W/"${String(version)}"`;
}

/** The literal of a key in a URL: `5` or `'p123'` (quotes doubled). */
export function keyLiteral(value: unknown): string {
  return typeof value === 'string' ? `'${encodeURIComponent(value.replace(/'/g, "''"))}'` : String(value);
}

/** `blacklist(5)`: the entity's path below the service root, when it has a set and a single key. */
export function entityPath(model: EntityModel, row: Row): string | undefined {
  if (!model.setName || model.key.length !== 1 || row[model.key[0]!] === undefined) return undefined;
  return `${model.setName}(${keyLiteral(row[model.key[0]!])})`;
}

/**
 * The entity in its wire form: properties in model order (limited by `$select`), `@odata.etag` when the
 * model has a version column; full metadata adds `@odata.type`, `@odata.id`, `@odata.editLink` and the
 * type of each property a JSON value does not tell; none drops every control information.
 */
export function formatEntity(model: EntityModel, row: Row, select?: string[], wire?: WireOptions): Record<string, unknown> {
  const format = wire?.format ?? MINIMAL_JSON;
  const out: Record<string, unknown> = {};
  if (format.metadata === 'full') {
    out['@odata.type'] = `#${NAMESPACE}.${model.typeName}`;
    const path = entityPath(model, row);
    const links = path && wire?.links ? wire.links(model.setName!) : undefined;
    if (path && wire && links?.id) out['@odata.id'] = `${wire.serviceRoot}/${path}`;
    if (path && links?.edit) out['@odata.editLink'] = path;
  }
  if (format.metadata !== 'none' && model.etagColumn && row['@etag'] !== undefined && row['@etag'] !== null) {
    out['@odata.etag'] = weakEtag(row['@etag']);
  }
  for (const p of model.properties) {
    if (p.writeOnly || (select && !select.includes(p.name))) continue;
    if (p.virtual && !(p.name in row)) continue;
    const type = format.metadata === 'full' ? propertyTypeAnnotation(p) : undefined;
    if (type) out[`${p.name}@odata.type`] = type;
    out[p.name] = formatValue(p, row[p.name], format.ieee754);
  }
  return out;
}

/** `<serviceRoot>/$metadata#<fragment>`. */
export function contextUrl(serviceRoot: string, fragment: string): string {
  return `${serviceRoot}/$metadata#${fragment}`;
}

/** The context fragment of a collection of this type: the entity set, or `Collection(Controller.Type)`. */
export function collectionFragment(model: EntityModel | null, select?: string[]): string {
  if (!model) return 'Collection(Edm.Untyped)';
  const base = model.setName ?? `Collection(${NAMESPACE}.${model.typeName})`;
  return select ? `${base}(${select.join(',')})` : base;
}

/** The context fragment of a single entity. */
export function entityFragment(model: EntityModel, select?: string[]): string {
  if (!model.setName) return `${NAMESPACE}.${model.typeName}`;
  return select ? `${model.setName}(${select.join(',')})/$entity` : `${model.setName}/$entity`;
}

/**
 * If-Match semantics (docs/cati-api.md#odata): absent, `*`, or a list containing the current ETag passes;
 * anything else → 412 PreconditionFailed. Weak and strong forms of the same tag both match.
 */
export function checkIfMatch(header: string | undefined, version: unknown): void {
  if (header === undefined || header.trim() === '') return;
  const current = String(version);
  const tags = header.split(',').map((t) => t.trim());
  const ok = tags.some((t) => t === '*' || t.replace(/^W\//, '') === `"${current}"`);
  if (!ok) throw preconditionFailed(`The If-Match header ${header} does not match the current ETag ${weakEtag(current)}`);
}
